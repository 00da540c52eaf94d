/**
 * The jkubelet node configuration: the {@code kubelet.config.k8s.io/v1beta1} KubeletConfiguration
 * subset jkubelet supports, with loading from a file, flag overlay and validation.
 */
package io.jkubelet.config;
