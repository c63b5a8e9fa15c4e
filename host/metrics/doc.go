// Package metrics exports what Airlock does as Prometheus metrics:
// invocations, failures, blocks and latency per interceptor, chain outcomes,
// instance pools, and reloads. It implements [chain.Observer].
package metrics
