package viewer

import (
	"context"
	"errors"
	"io"
	"slices"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/store"
)

// corpusGold is the gold of the event's conversation and task as its
// stored corpus gives it: anchors, negative spans and excluded intervals,
// listed as the bundle's own timelines list them (evaluate.GoldItems). The
// labels file is checked against the sha256 the corpus manifest records.
// ok is false when the corpus or the labels are not in the store, or when
// they do not give the gold the bundle scored (a bundle of an older
// derivation); the timeline then draws the bundle's gold.
func (s *Server) corpusGold(ctx context.Context, ev *scoredEvent) (_ []evaluate.TimelineItem, ok bool) {
	sc, conv := ev.b.corpora[ev.ref.Corpus], ev.conversation()
	if sc == nil || conv == nil || conv.Unlabelled {
		return nil, false
	}
	name := corpus.LabelsName(sc.manifest.Kind)
	key := keys.MemberFile(sc.prefix, conv.ID, name)
	if store.CheckKey(key) != nil {
		return nil, false
	}
	r, err := s.store.Get(ctx, key)
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			s.log.Printf("viewer: %s: %v", key, err)
		}
		return nil, false
	}
	defer r.Close()
	data, err := io.ReadAll(corpus.Verified(r, conv.Files[name], corpus.MaxFileSize(*conv, name)))
	if err != nil {
		s.log.Printf("viewer: %s: %v", key, err)
		return nil, false
	}
	labels, err := corpus.ParseLabels(sc.manifest.Kind, *conv, data)
	if err != nil {
		s.log.Printf("viewer: %s: %v", key, err)
		return nil, false
	}
	gold := evaluate.GoldItems(labels.Gold.Task(ev.ref.Task))
	if !scoresOf(gold, ev.task.Events, conv.ID) {
		s.log.Printf("viewer: %s: its %s gold is not the gold bundle %s scored; drawing the bundle's", key, ev.ref.Task, ev.b.id)
		return nil, false
	}
	return gold, true
}

// scoredGold is the gold a bundle holds of conversation conv: the anchors
// and negative spans of its events.
func scoredGold(events []evaluate.EventRow, conv string) []evaluate.TimelineItem {
	var out []evaluate.TimelineItem
	for _, e := range events {
		if e.Conversation == conv {
			out = append(out, evaluate.TimelineItem{Speaker: e.Speaker, Kind: e.Kind, Start: e.Start, End: e.End})
		}
	}
	return out
}

// scoresOf tells whether gold holds exactly the anchors and negative spans
// the bundle scored on conversation conv.
func scoresOf(gold []evaluate.TimelineItem, events []evaluate.EventRow, conv string) bool {
	scored := scoredGold(events, conv)
	items := slices.DeleteFunc(slices.Clone(gold), func(it evaluate.TimelineItem) bool { return it.Kind == "excluded" })
	if len(items) != len(scored) {
		return false
	}
	for _, it := range scored {
		if !slices.Contains(items, it) {
			return false
		}
	}
	return true
}
