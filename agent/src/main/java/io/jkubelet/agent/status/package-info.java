/**
 * Pod status: generating the API status from the runtime's view, keeping it per pod, and (in
 * cluster mode) writing it to the API server.
 */
package io.jkubelet.agent.status;
