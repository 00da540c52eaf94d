package io.jkubelet.config;

/**
 * The node's resources and how they are kept: cgroups, what is reserved for the system, eviction
 * under pressure and the garbage collection of containers and images.
 */
public record ResourceSettings(
    CgroupSettings cgroups,
    ReservationSettings reservations,
    EvictionSettings eviction,
    GcSettings gc) {}
