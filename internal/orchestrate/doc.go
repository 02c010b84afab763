// Package orchestrate is the client side of floorbench's Temporal
// orchestration (docs/architecture.md#workflows): it resolves a sweep spec into workflow input,
// connects to Temporal and the store from configuration, runs workers,
// submits and watches sweeps, and runs the same plan in process for the
// orchestration-overhead benchmark. It is not a domain package: it is what
// the commands share.
package orchestrate
