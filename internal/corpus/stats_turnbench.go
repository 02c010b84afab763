package corpus

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
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
func ComputeTurnBenchStats(dir string) (*TurnBenchStats, error) {
	c, err := Open(dir)
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

// WriteText prints the stats as a table: splits first, then types in
// alphabetical order.
func (s *TurnBenchStats) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "turnbench: %d conversations (%d unlabelled), %.2f h\n\n", s.Conversations, s.Unlabelled, s.Hours)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "group\tconvs\tunlabelled\thours\tEOT+\tEOT-\tEOT excl\tINT+\tINT-\tINT excl\t")
	rows := func(prefix string, m map[string]*GoldCounts) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			g := m[k]
			fmt.Fprintf(tw, "%s%s\t%d\t%d\t%.2f\t%d\t%d\t%d\t%d\t%d\t%d\t\n", prefix, k, g.Conversations, g.Unlabelled, g.Hours,
				g.EOTPositives, g.EOTNegatives, g.EOTExcluded, g.INTPositives, g.INTNegatives, g.INTExcluded)
		}
	}
	rows("split ", s.BySplit)
	rows("type ", s.ByType)
	return tw.Flush()
}
