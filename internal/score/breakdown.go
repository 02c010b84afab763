package score

import (
	"cmp"
	"slices"
	"strconv"
)

// Group is one value of a conversation attribute with its pooled counts.
type Group struct {
	Value         string
	Conversations int
	Counts        Counts
	CIs           *RateCIs // nil without bootstrap
}

// Breakdown groups per-conversation counts by an attribute (speaker count,
// interaction type, SNR band, ...; docs/protocol.md#breakdowns-and-error-anatomy): values[i] is conversation
// i's value. Each group sums its conversations' counts and, when
// resamples > 0, gets bootstrap intervals from resampling its own
// conversations. Groups are ordered numerically when every value is a
// number, otherwise alphabetically.
func Breakdown(perConv []Counts, values []string, resamples int, seed uint64) []Group {
	members := map[string][]Counts{}
	for i, v := range values {
		members[v] = append(members[v], perConv[i])
	}
	keys := make([]string, 0, len(members))
	numeric := true
	for k := range members {
		keys = append(keys, k)
		if _, err := strconv.ParseFloat(k, 64); err != nil {
			numeric = false
		}
	}
	slices.SortFunc(keys, func(a, b string) int {
		if numeric {
			x, _ := strconv.ParseFloat(a, 64)
			y, _ := strconv.ParseFloat(b, 64)
			return cmp.Or(cmp.Compare(x, y), cmp.Compare(a, b))
		}
		return cmp.Compare(a, b)
	})
	out := make([]Group, len(keys))
	for i, k := range keys {
		rows := members[k]
		out[i] = Group{Value: k, Conversations: len(rows), Counts: Sum(rows)}
		if resamples > 0 {
			ci := NewResamples(len(rows), resamples, seed).CIs(rows)
			out[i].CIs = &ci
		}
	}
	return out
}
