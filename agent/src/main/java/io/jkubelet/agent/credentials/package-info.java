/**
 * Image pull credentials, as upstream's {@code pkg/credentialprovider}: Docker config files and
 * {@code imagePullSecrets} parsed into a {@link io.jkubelet.agent.credentials.Keyring} that finds
 * the credentials for an image's registry by URL glob ({@link
 * io.jkubelet.agent.credentials.BasicKeyring}), the node's own file ({@link
 * io.jkubelet.agent.credentials.NodeKeyring}) and the pod's secrets ({@link
 * io.jkubelet.agent.credentials.PullSecrets}). Pure logic and file reads; no credential is ever
 * logged.
 */
package io.jkubelet.agent.credentials;
