// Package temporalclient is floorbench's side of Temporal as a client
// (docs/architecture.md#workflows): it dials Temporal as the configuration
// says (waiting for it where a worker starts first), runs workers on the
// task queues under an admission (activities.Admission), answers a
// worker's health probes, submits sweeps, reports and watches their
// progress, and creates and manages the schedules of nightly runs on
// Temporal's Schedules API. It imports workflows, activities, sweep,
// spec, config, nightly, webhook and limits.
package temporalclient
