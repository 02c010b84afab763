package agent

import (
	"cmp"
	"slices"
)

// ScoringVersion is the version of the trial decisions and the scores
// (VAD, decisions, metrics, intervals): bump it with any change that
// changes a number of Results, so stored agent results are computed again.
const ScoringVersion = 1

// Combine joins the results of agents scored separately with the same
// parameters (each agent's scores depend only on its own trials) into the
// results Score gives of all their trials at once: agents and trials in
// Score's order.
func Combine(p ScoreParams, parts ...Results) Results {
	res := Results{SchemaVersion: ResultsSchemaVersion, Params: p, Agents: []AgentResult{}, Trials: []TrialResult{}}
	for _, r := range parts {
		res.Agents = append(res.Agents, r.Agents...)
		res.Trials = append(res.Trials, r.Trials...)
	}
	slices.SortStableFunc(res.Agents, func(a, b AgentResult) int {
		return cmp.Or(cmp.Compare(a.Agent, b.Agent), cmp.Compare(a.Protocol, b.Protocol))
	})
	slices.SortStableFunc(res.Trials, func(a, b TrialResult) int {
		return cmp.Or(cmp.Compare(a.Agent, b.Agent), cmp.Compare(a.Protocol, b.Protocol),
			cmp.Compare(a.ScenarioID, b.ScenarioID), cmp.Compare(a.Repeat, b.Repeat))
	})
	return res
}
