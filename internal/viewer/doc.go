// Package viewer is floorbench serve: a read-only web viewer over the
// store (docs/operations.md). It lists bundles, shows a bundle's
// leaderboards, sim-to-real table, operating points and figures, browses
// every scored event a page at a time, draws an event's timeline from the
// stored score track and audio, plays the conversation around it (HTTP
// range requests), and compares two bundles.
//
// Pages are html/template, served with no script and no resource from
// elsewhere. Bundle ids are checked (24 hex digits) and every other name
// in a request is looked up in the bundle's results before a key is made
// from it, so no request reaches a key outside the bundle it names.
// Missing things are a 404 page that says what is missing; store failures
// are logged and shown as a 502 without detail.
package viewer
