package report

import "github.com/floorbench/floorbench/internal/score"

// Breakdown is the JSON shape of one task's results grouped by one
// attribute (docs/protocol.md#breakdowns-and-error-anatomy), the same in
// bundles and in `floorbench score -o json`.
type Breakdown struct {
	Attribute string  `json:"attribute"`
	Groups    []Group `json:"groups"`
}

// Group is one attribute value with its conversations' metrics.
type Group struct {
	Value         string      `json:"value"`
	Conversations int         `json:"n"`
	Metrics       TaskMetrics `json:"metrics"`
}

// NewBreakdown converts score.Breakdown's groups to their JSON shape,
// with recall within each latency budget, intervals attached when the
// groups have them.
func NewBreakdown(attribute string, groups []score.Group, budgetsMS []int) Breakdown {
	b := Breakdown{Attribute: attribute, Groups: make([]Group, len(groups))}
	for i, g := range groups {
		m := Metrics(g.Counts, budgetsMS)
		if g.CIs != nil {
			m = m.WithCI(*g.CIs)
		}
		b.Groups[i] = Group{g.Value, g.Conversations, m}
	}
	return b
}
