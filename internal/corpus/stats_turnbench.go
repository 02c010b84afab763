package corpus

import (
	"errors"
	"fmt"
	"slices"

	"github.com/floorbench/floorbench/internal/limits"
)

// TurnBenchStats is the composition of a TurnBench corpus, the fields of
// `corpus stats -o json` for kind turnbench: gold anchors, spans and
// excluded intervals (docs/protocol.md#turnbench) per split and per conversation type.
// Unlabelled conversations are counted but have no gold.
type TurnBenchStats struct {
	Conversations int                    `json:"conversations"`
	Unlabelled    int                    `json:"unlabelled"`
	Hours         float64                `json:"hours"`
	BySplit       map[string]*GoldCounts `json:"by_split"`
	ByType        map[string]*GoldCounts `json:"by_type"`
}

// GoldCounts are the gold of a group of conversations.
type GoldCounts struct {
	Conversations int     `json:"conversations"`
	Unlabelled    int     `json:"unlabelled"`
	Hours         float64 `json:"hours"`
	EOTPositives  int     `json:"eot_positives"`
	EOTNegatives  int     `json:"eot_negatives"`
	EOTExcluded   int     `json:"eot_excluded"`
	INTPositives  int     `json:"int_positives"`
	INTNegatives  int     `json:"int_negatives"`
	INTExcluded   int     `json:"int_excluded"`
}

// ComputeTurnBenchStats derives the gold of every labelled conversation
// of a TurnBench corpus and counts it.
func ComputeTurnBenchStats(dir string, lim limits.Limits) (*TurnBenchStats, error) {
	c, err := Open(dir, lim)
	if err != nil {
		return nil, err
	}
	if c.Manifest.Kind != KindTurnBench {
		return nil, fmt.Errorf("%s: a corpus of kind %s, not %s", dir, c.Manifest.Kind, KindTurnBench)
	}
	s := &TurnBenchStats{BySplit: map[string]*GoldCounts{}, ByType: map[string]*GoldCounts{}}
	for _, conv := range c.Manifest.Conversations {
		groups := []*GoldCounts{goldGroup(s.BySplit, conv.Split), goldGroup(s.ByType, conv.InteractionType)}
		s.Conversations++
		s.Hours += conv.Duration / 3600
		for _, g := range groups {
			g.Conversations++
			g.Hours += conv.Duration / 3600
		}
		l, err := c.Labels(conv)
		if errors.Is(err, ErrUnlabelled) {
			s.Unlabelled++
			for _, g := range groups {
				g.Unlabelled++
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, g := range groups {
			gold := l.Gold
			g.EOTPositives += len(gold.EOT.Positives)
			g.EOTNegatives += len(gold.EOT.Negatives)
			g.EOTExcluded += len(gold.EOT.Excluded)
			g.INTPositives += len(gold.INT.Positives)
			g.INTNegatives += len(gold.INT.Negatives)
			g.INTExcluded += len(gold.INT.Excluded)
		}
	}
	return s, nil
}

func goldGroup(m map[string]*GoldCounts, key string) *GoldCounts {
	if m[key] == nil {
		m[key] = &GoldCounts{}
	}
	return m[key]
}

// Summary is the corpus's totals.
func (s *TurnBenchStats) Summary() []string {
	return []string{fmt.Sprintf("turnbench: %d conversations (%d unlabelled), %.2f h", s.Conversations, s.Unlabelled, s.Hours)}
}

// Table is the gold's composition, splits first, then types in
// alphabetical order: its title, header and rows (the command line renders
// them in its formats).
func (s *TurnBenchStats) Table() (title string, header []string, rows [][]string) {
	title = "gold by split and conversation type"
	header = []string{"group", "convs", "unlabelled", "hours", "EOT+", "EOT-", "EOT excl", "INT+", "INT-", "INT excl"}
	add := func(prefix string, m map[string]*GoldCounts) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			g := m[k]
			rows = append(rows, []string{prefix + k, fmt.Sprint(g.Conversations), fmt.Sprint(g.Unlabelled), fmt.Sprintf("%.2f", g.Hours),
				fmt.Sprint(g.EOTPositives), fmt.Sprint(g.EOTNegatives), fmt.Sprint(g.EOTExcluded), fmt.Sprint(g.INTPositives), fmt.Sprint(g.INTNegatives), fmt.Sprint(g.INTExcluded)})
		}
	}
	add("split ", s.BySplit)
	add("type ", s.ByType)
	return title, header, rows
}
