// Package preview works out, from a resolved sweep and the store alone
// (no Temporal, nothing written), what submitting it would do: its
// identity, and for each corpus, evaluation, agent and the bundle whether
// the store already holds it (`floorbench submit --dry-run`). It reads
// the plan the sweep executes (workflows.NewPlan) and the activities'
// keys, so it imports workflows, activities, sweep, spec, bundle, corpus,
// agent, agent/seated, agent/proto, synth, keys and store.
package preview
