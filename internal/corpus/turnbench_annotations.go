package corpus

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/jsonio"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/redact"
)

// TurnBenchConversation is one conversation of raw TurnBench annotations:
// per speaker, the tracks of annotators a, b and c.
type TurnBenchConversation struct {
	ID       string
	Duration float64
	// DurationInteger: duration_s was written as an integer (see
	// floor.ConversationGold.DurationInteger).
	DurationInteger bool
	Speakers        []floor.SpeakerAnnotations // index speaker-1
}

// AnnotatorKeys are the annotator names of TurnBench, in grouping order:
// the keys of annotations.json and the suffixes of its parquet columns.
var AnnotatorKeys = [floor.Annotators]string{"a", "b", "c"}

// AnnotationTimeTolerance is how far past the end of the audio an
// annotated segment may end (a resampled channel can lose a fraction of a
// sample; annotators' tools round).
const AnnotationTimeTolerance = BoundaryTolerance

// ReadTurnBenchAnnotations reads raw three-annotator tracks from JSON:
//
//	{"conversations": {"<id>": {"duration_s": 312.5, "annotations": {
//	    "speaker_1": {"a": [[start, end, "Normal Turn", "text"], ...], "b": [...], "c": [...]},
//	    "speaker_2": {...}}}}}
//
// Every segment is [start, end, label] with an optional text; labels outside
// TurnBench's taxonomy are kept and ignored by the gold, as TurnBench does.
// Segments far outside the conversation are rejected
// (floor.CheckAnnotatedSegments).
// Errors name the file, conversation, speaker, annotator and index. The
// file holds at most lim's input_bytes.
func ReadTurnBenchAnnotations(path string, lim limits.Limits) ([]TurnBenchConversation, error) {
	return jsonio.ReadFile(path, lim, ParseTurnBenchAnnotations)
}

// ParseTurnBenchAnnotations parses the bytes of an annotations file.
func ParseTurnBenchAnnotations(data []byte) ([]TurnBenchConversation, error) {
	var out []TurnBenchConversation
	err := eachTurnBenchConversation(data, func(c TurnBenchConversation) {
		out = append(out, c)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachTurnBenchConversation parses an annotations file, calling fn with
// each conversation, in file order, as soon as it is read and checked.
func eachTurnBenchConversation(data []byte, fn func(TurnBenchConversation)) error {
	d := jsonio.NewDecoder(data)
	haveConvs := false
	err := d.Object(func(key string) error {
		if key != "conversations" {
			return fmt.Errorf("unknown key %s", redact.Name(key))
		}
		haveConvs = true
		return d.Object(func(id string) error {
			c, err := parseTurnBenchConversation(d, id)
			if err != nil {
				return fmt.Errorf("conversation %s: %w", redact.Name(id), err)
			}
			fn(c)
			return nil
		})
	})
	if err == nil {
		err = d.End()
	}
	if err != nil {
		return err
	}
	if !haveConvs {
		return fmt.Errorf("missing key \"conversations\"")
	}
	return nil
}

func parseTurnBenchConversation(d *jsonio.Decoder, id string) (TurnBenchConversation, error) {
	c := TurnBenchConversation{ID: id, Duration: math.NaN()}
	speakers := map[int]floor.SpeakerAnnotations{}
	haveAnnotations := false
	err := d.Object(func(key string) error {
		switch key {
		case "duration_s":
			v, integer, err := d.Number()
			if err != nil {
				return fmt.Errorf("duration_s: %w", err)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return fmt.Errorf("duration_s: must be finite and >= 0, got %v", v)
			}
			c.Duration, c.DurationInteger = v, integer
			return nil
		case "annotations":
			haveAnnotations = true
			return d.Object(func(sk string) error {
				k, ok := speakerNumber(sk)
				if !ok {
					return fmt.Errorf("annotations: unknown key %s (want speaker_1, speaker_2, ...)", redact.Name(sk))
				}
				tracks, err := parseAnnotatorTracks(d, sk)
				speakers[k] = tracks
				return err
			})
		}
		return fmt.Errorf("unknown key %s", redact.Name(key))
	})
	if err != nil {
		return c, err
	}
	if math.IsNaN(c.Duration) {
		return c, fmt.Errorf("missing key \"duration_s\"")
	}
	if !haveAnnotations || len(speakers) == 0 {
		return c, fmt.Errorf("missing key \"annotations\" or no speakers in it")
	}
	for k := 1; k <= len(speakers); k++ {
		tracks, ok := speakers[k]
		if !ok {
			return c, fmt.Errorf("annotations: speaker_%d is missing (speakers must be numbered 1..%d)", k, len(speakers))
		}
		c.Speakers = append(c.Speakers, tracks)
	}
	if err := floor.CheckAnnotatedSegments(c.Duration, c.Speakers); err != nil {
		return c, err
	}
	return c, nil
}

func parseAnnotatorTracks(d *jsonio.Decoder, speaker string) (floor.SpeakerAnnotations, error) {
	var tracks floor.SpeakerAnnotations
	var seen [floor.Annotators]bool
	err := d.Object(func(key string) error {
		a := -1
		for i, name := range AnnotatorKeys {
			if key == name {
				a = i
			}
		}
		if a < 0 {
			return fmt.Errorf("%s: unknown annotator %s (want a, b and c)", speaker, redact.Name(key))
		}
		seen[a] = true
		return d.Array(func(i int) error {
			s, err := parseAnnotatedSegment(d)
			if err != nil {
				return fmt.Errorf("%s annotator %s segment %d: %w", speaker, key, i, err)
			}
			tracks[a] = append(tracks[a], s)
			return nil
		})
	})
	if err != nil {
		return tracks, err
	}
	for i, ok := range seen {
		if !ok {
			return tracks, fmt.Errorf("%s: annotator %q is missing", speaker, AnnotatorKeys[i])
		}
	}
	return tracks, nil
}

func parseAnnotatedSegment(d *jsonio.Decoder) (floor.AnnotatedSegment, error) {
	var s floor.AnnotatedSegment
	n := 0
	err := d.Array(func(i int) error {
		n++
		var err error
		switch i {
		case 0, 1:
			var v float64
			var integer bool
			if v, integer, err = d.Number(); err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
				err = fmt.Errorf("time must be finite, got %v", v)
			}
			if i == 0 {
				s.Start, s.StartInteger = v, integer
			} else {
				s.End, s.EndInteger = v, integer
			}
		case 2:
			s.Label, err = d.String()
		case 3:
			s.Text, err = d.String()
		default:
			err = fmt.Errorf("want [start, end, label] or [start, end, label, text], found more items")
		}
		if err != nil && i <= 3 {
			err = fmt.Errorf("item %d: %w", i, err)
		}
		return err
	})
	if err == nil && n < 3 {
		err = fmt.Errorf("want [start, end, label] or [start, end, label, text], found %d items", n)
	}
	return s, err
}

// speakerNumber reads "speaker_N" (N >= 1, no leading zeros).
func speakerNumber(key string) (int, bool) {
	var n int
	if _, err := fmt.Sscanf(key, "speaker_%d", &n); err != nil || n < 1 || fmt.Sprintf("speaker_%d", n) != key {
		return 0, false
	}
	return n, true
}

// EncodeTurnBenchAnnotations writes conversations in the format
// ParseTurnBenchAnnotations reads, every segment as [start, end, label,
// text]. Keys are sorted, so the bytes depend only on the content, and
// float64 times round-trip exactly, each as the kind of number it was read
// as (see pyNumber).
func EncodeTurnBenchAnnotations(convs []TurnBenchConversation) ([]byte, error) {
	out := map[string]any{}
	for _, c := range convs {
		speakers := map[string]any{}
		for k, tracks := range c.Speakers {
			byAnnotator := map[string]any{}
			for a, track := range tracks {
				segs := make([]any, 0, len(track))
				for _, s := range track {
					segs = append(segs, []any{pyNumber(s.Start, s.StartInteger), pyNumber(s.End, s.EndInteger), s.Label, s.Text})
				}
				byAnnotator[AnnotatorKeys[a]] = segs
			}
			speakers[fmt.Sprintf("speaker_%d", k+1)] = byAnnotator
		}
		out[c.ID] = map[string]any{"duration_s": pyNumber(c.Duration, c.DurationInteger), "annotations": speakers}
	}
	return encode(map[string]any{"conversations": out})
}

// pyNumber writes a number so that it reads back as the same kind of
// number: an integer only when it was read as one, otherwise a float with
// its ".0" (Python reads 60 as an int and 60.0 as a float). A time read
// from parquet, a double, is a float.
func pyNumber(x float64, integer bool) json.RawMessage {
	return json.RawMessage(jsonio.PyNumber(x, integer))
}

// TurnBenchGold derives the gold set of annotated conversations (docs/protocol.md#turnbench)
// with the default matching windows. Conversations are derived on every
// core, each on its own; the set lists them in their order.
func TurnBenchGold(convs []TurnBenchConversation) *floor.GoldSet {
	g := newTurnBenchGold()
	for _, c := range convs {
		g.add(c)
	}
	return g.wait()
}

// ReadTurnBenchGold reads an annotations file as ReadTurnBenchAnnotations
// does and derives its gold set as TurnBenchGold does, each conversation
// while the next ones are read, so that the file's reading and the
// consensus share the cores.
func ReadTurnBenchGold(path string, lim limits.Limits) (*floor.GoldSet, error) {
	return jsonio.ReadFile(path, lim, func(data []byte) (*floor.GoldSet, error) {
		g := newTurnBenchGold()
		err := eachTurnBenchConversation(data, g.add)
		set := g.wait()
		if err != nil {
			return nil, err
		}
		return set, nil
	})
}

// turnBenchGold derives conversations' gold on every core as they are
// added; wait returns the set, in the order they were added.
type turnBenchGold struct {
	derive errgroup.Group
	mu     sync.Mutex
	convs  []floor.ConversationGold
}

func newTurnBenchGold() *turnBenchGold {
	g := &turnBenchGold{}
	g.derive.SetLimit(runtime.GOMAXPROCS(0))
	return g
}

func (g *turnBenchGold) add(c TurnBenchConversation) {
	g.mu.Lock()
	i := len(g.convs)
	g.convs = append(g.convs, floor.ConversationGold{})
	g.mu.Unlock()
	g.derive.Go(func() error {
		gold := floor.DeriveTurnBench(c.ID, c.Duration, c.Speakers)
		gold.DurationInteger = c.DurationInteger
		g.mu.Lock()
		g.convs[i] = gold
		g.mu.Unlock()
		return nil
	})
}

func (g *turnBenchGold) wait() *floor.GoldSet {
	g.derive.Wait()
	return &floor.GoldSet{TauPre: floor.DefaultTauPre, TauMax: floor.DefaultTauMax, Conversations: g.convs}
}
