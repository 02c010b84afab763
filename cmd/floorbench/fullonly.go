package main

// fullOnly is the one-line help of every command that links Temporal,
// Kubernetes, S3 or plotting, by name. The floorbench front (built with
// -tags floorbench_light, scripts/build.sh) holds the other commands
// and lists these from here, handing each to floorbench-full beside it,
// so that the scoring commands start without initialising those
// libraries (docs/performance.md#start-time); floorbench-full (the
// default build) holds every command.
var fullOnly = map[string]string{
	"bundle":     "List, show, fetch and compare result bundles in the store",
	"dev":        "Run a Temporal dev server and a worker on this machine for submit, status and watch",
	"quickstart": "Run the whole job on this machine: generate, detect, evaluate, bundle",
	"schedule":   "Nightly regressions: sweeps on a Temporal schedule, each judged against a baseline",
	"serve":      "Serve a read-only web viewer of the bundles in the store",
	"status":     "Show a sweep's phase and progress",
	"store":      "Inspect the store",
	"submit":     "Submit a sweep; the same spec always maps to the same run",
	"watch":      "Follow a sweep with a progress bar until it ends; print its bundle id",
	"worker":     "Run a Temporal worker for floorbench's task queues until interrupted",
}
