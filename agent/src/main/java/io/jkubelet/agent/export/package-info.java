/**
 * Event export: jkubelet's own events and a cluster's events written to Elasticsearch or OpenSearch
 * ({@code _bulk}, one document per event UID, through a bounded on-disk spool) and to a rotated
 * JSON-lines file.
 */
package io.jkubelet.agent.export;
