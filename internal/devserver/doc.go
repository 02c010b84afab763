// Package devserver starts and stops a Temporal dev server from the
// pinned Temporal CLI (scripts/setup.sh temporal) on a free loopback
// port, for the quickstart, `floorbench dev` and the tests that run sweeps
// through Temporal. It imports childenv and the Temporal SDK's client (to
// wait until the server answers), nothing else of floorbench.
package devserver
