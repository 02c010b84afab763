// Package quickstart is `floorbench quickstart`: the whole job on one
// machine, from a spec to a bundle (docs/operations.md#one-machine). It resolves
// and uploads the sweep, checks that its agents answer, starts a Temporal
// dev server (devserver) unless one is given, workers on every queue,
// submits and watches the sweep (temporalclient), and stops what it
// started. It imports temporalclient, devserver, config, activities,
// sweep, spec, bundle, detect, keys, store, agent/harness and
// agent/proto.
package quickstart
