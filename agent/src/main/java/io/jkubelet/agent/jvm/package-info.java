/**
 * jkubelet's own JVM as a small daemon: {@link io.jkubelet.agent.jvm.HeapKeeper} gives back the
 * heap that the serial collector's old generation grows into between its (rare) full collections.
 * The {@link io.jkubelet.agent.jvm.Heap} interface is its edge to the JVM.
 */
package io.jkubelet.agent.jvm;
