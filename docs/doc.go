// Package docs holds floorbench's design documents as Markdown:
// protocol.md (the scoring rules), architecture.md (packages, workflows,
// store layout, identities), formats.md (every file read or written),
// systems.md (each system of MPTB's and TurnBench's tables and how it
// runs here, and systems whose scores come from an outside endpoint) and
// operations.md (running and deploying). It has no code; its test checks
// that the repository cites these documents, with anchors that exist, and
// no design document outside the repository, and that systems.md lists
// the published systems `floorbench systems` prints, with their status.
package docs
