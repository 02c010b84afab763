package corpus

import (
	"errors"
	"fmt"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
)

// ErrUnlabelled is returned for the gold of a conversation that has audio
// but no labels (TurnBench's held-out test split).
var ErrUnlabelled = errors.New("unlabelled: it can be detected but not scored")

// Labels is what a conversation's labels give: its gold, its floor
// segments (the human timing baseline reads them) and, for corpora with an
// event log, the events (the error anatomy reads them).
type Labels struct {
	Gold   floor.ConversationGold
	Floor  []floor.FloorSegment
	Events []floor.Event
}

// Labels derives conversation conv's gold by the rules of the corpus's kind
// (docs/protocol.md#gold-derivation): MPTB and AMI from their event logs, TurnBench from its raw
// three-annotator tracks by the TurnBench consensus.
func (c *Corpus) Labels(conv Conversation) (*Labels, error) {
	if conv.Unlabelled {
		return nil, fmt.Errorf("%s: conversation %s is %w", c.Dir, conv.ID, ErrUnlabelled)
	}
	data, path, err := c.readLabelsFile(conv, LabelsName(c.Manifest.Kind))
	if err != nil {
		return nil, err
	}
	l, err := ParseLabels(c.Manifest.Kind, conv, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// ParseLabels derives conversation conv's labels from data, the bytes of
// its labels file (LabelsName of kind) read from wherever the corpus is
// kept, by the rules Labels follows.
func ParseLabels(kind string, conv Conversation, data []byte) (*Labels, error) {
	if kind == KindTurnBench {
		convs, err := ParseTurnBenchAnnotations(data)
		if err != nil {
			return nil, err
		}
		if len(convs) != 1 || convs[0].ID != conv.ID || convs[0].Duration != conv.Duration || len(convs[0].Speakers) != conv.Speakers {
			return nil, fmt.Errorf("does not hold exactly conversation %s (%d speakers, %v s) as the manifest says", conv.ID, conv.Speakers, conv.Duration)
		}
		return &Labels{Gold: floor.DeriveTurnBench(conv.ID, conv.Duration, convs[0].Speakers),
			Floor: floor.TurnBenchFloorSegments(convs[0].Speakers)}, nil
	}
	l, err := parseEventsOf(conv, data)
	if err != nil {
		return nil, err
	}
	g := floor.DeriveMPTB(conv.ID, conv.Duration, l.Events, floor.DefaultInterruptedGuard)
	g.SpeakerCount = conv.Speakers // the corpus states it; the gold written says so
	return &Labels{Gold: g, Floor: floor.EventFloorSegments(l.Events), Events: l.Events}, nil
}

// Gold derives the gold of a corpus's split ("" for all) in manifest order,
// by the rules of the corpus's kind. `floorbench gold --corpus` prints it.
// A split with unlabelled conversations has no gold: the error says so.
func Gold(dir, split string, lim limits.Limits) (*floor.GoldSet, error) {
	c, err := Open(dir, lim)
	if err != nil {
		return nil, err
	}
	convs, err := c.Conversations(split)
	if err != nil {
		return nil, err
	}
	g := &floor.GoldSet{TauPre: floor.DefaultTauPre, TauMax: floor.DefaultTauMax}
	for _, conv := range convs {
		l, err := c.Labels(conv)
		if err != nil {
			return nil, err
		}
		g.Conversations = append(g.Conversations, l.Gold)
	}
	return g, nil
}

// Timing is the human timing baseline of a corpus's split ("" for all):
// the floor-transfer offsets of its labelled conversations, how its
// handover offsets and hold pauses compare with Switchboard's, and what its
// event logs predict for the audit's holder-silence rule.
func Timing(dir, split string, lim limits.Limits) (floor.Timing, error) {
	c, err := Open(dir, lim)
	if err != nil {
		return floor.Timing{}, err
	}
	convs, err := c.Conversations(split)
	if err != nil {
		return floor.Timing{}, err
	}
	var (
		transfers                  []floor.Transfer
		offsets, pauses, reactions []float64
		claims, negatives          []float64
	)
	for _, conv := range convs {
		if conv.Unlabelled {
			continue
		}
		l, err := c.Labels(conv)
		if err != nil {
			return floor.Timing{}, err
		}
		transfers = append(transfers, floor.Transfers(l.Floor)...)
		offsets = append(offsets, floor.HandoverOffsets(l.Floor)...)
		pauses = append(pauses, floor.HoldPauses(l.Gold)...)
		reactions = append(reactions, floor.HolderReactions(l.Floor)...)
		c, n := floor.OthersSilences(l.Events, floor.DefaultTauMax)
		claims, negatives = append(claims, c...), append(negatives, n...)
	}
	t := floor.NewTiming(transfers)
	t.Switchboard = floor.CheckTiming(offsets, pauses, reactions)
	t.HolderSilence = floor.NewSilenceShares(claims, negatives)
	return t, nil
}
