// Package docs holds floorbench's design documents as Markdown:
// protocol.md (the scoring rules), architecture.md (packages, workflows,
// store layout, identities), formats.md (every file read or written),
// systems.md (systems whose scores come from an outside endpoint) and
// operations.md (running and deploying). It has no code; its test checks
// that the repository cites these documents, with anchors that exist, and
// no design document outside the repository.
package docs
