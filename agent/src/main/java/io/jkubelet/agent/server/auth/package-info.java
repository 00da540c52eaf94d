/** Authentication and authorization of kubelet API requests, as upstream's kubelet server does. */
package io.jkubelet.agent.server.auth;
