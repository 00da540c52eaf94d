/** Pod status: generating the API status from the runtime's view, and keeping it per pod. */
package io.jkubelet.agent.status;
