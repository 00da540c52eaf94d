/** Pod networking by a network plugin (CNI or kubenet), as dockershim's network package. */
package io.jkubelet.agent.network;
