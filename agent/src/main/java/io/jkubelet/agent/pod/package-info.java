/**
 * The desired pods of this node, by UID and by full name; mirror pods; the pod phases; and what a
 * pod's spec says (containers, requests and limits, waiting reasons), defined once for all.
 */
package io.jkubelet.agent.pod;
