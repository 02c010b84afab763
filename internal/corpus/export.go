package corpus

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/floorbench/floorbench/internal/atomicfile"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
)

// Export formats for people's own tools (docs/formats.md#exports).
const (
	FormatRTTM     = "rttm"
	FormatTextGrid = "textgrid"
)

// Export writes one file per conversation into out: RTTM speaker activity
// (<id>.rttm: every stretch of speech, holds and restarts left out) or a
// Praat TextGrid (<id>.TextGrid: one interval tier per speaker labelled
// with event kinds, holds as HOLD and restarts as RESTART intervals). It returns how many files it wrote.
func Export(dir, format, out string, lim limits.Limits) (int, error) {
	var write func(string, Conversation, *EventLog) error
	switch format {
	case FormatRTTM:
		write = writeRTTM
	case FormatTextGrid:
		write = writeTextGrid
	default:
		return 0, fmt.Errorf("unknown export format %q (want rttm or textgrid)", format)
	}
	c, err := Open(dir, lim)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return 0, err
	}
	for _, conv := range c.Manifest.Conversations {
		log, err := c.Events(conv)
		if err != nil {
			return 0, err
		}
		if err := write(out, conv, log); err != nil {
			return 0, err
		}
	}
	return len(c.Manifest.Conversations), nil
}

// interval is one labelled stretch of a speaker's tier.
type interval struct {
	start, end float64
	label      string
}

// speakerIntervals splits every event of speaker k into its speech and
// hold stretches, in time order.
func speakerIntervals(events []floor.Event, k int) []interval {
	var out []interval
	for _, e := range events {
		if e.Speaker != k {
			continue
		}
		label := string(e.Kind)
		if e.Kind == floor.Turn {
			label += " (" + string(e.Ending) + ")"
		}
		s := e.Start
		for _, q := range silencesOf(e) {
			out = append(out, interval{s, q.start, label}, q)
			s = q.end
		}
		out = append(out, interval{s, e.End, label})
	}
	slices.SortFunc(out, func(a, b interval) int {
		if a.start < b.start {
			return -1
		}
		if a.start > b.start {
			return 1
		}
		return 0
	})
	return out
}

// silencesOf are a turn's holds (HOLD) and restarts (RESTART) in time
// order: the stretches inside it where its speaker is silent.
func silencesOf(e floor.Event) []interval {
	var out []interval
	for _, h := range e.Holds {
		out = append(out, interval{h.Start, h.End, labelHold})
	}
	for _, r := range e.Restarts {
		out = append(out, interval{r.Start, r.End, labelRestart})
	}
	slices.SortFunc(out, func(a, b interval) int { return cmp.Compare(a.start, b.start) })
	return out
}

// The labels of a turn's silences in exports.
const (
	labelHold    = "HOLD"
	labelRestart = "RESTART"
)

// writeRTTM writes NIST RTTM SPEAKER lines: file, channel 1, onset,
// duration, speaker.
func writeRTTM(out string, conv Conversation, log *EventLog) error {
	return writeFile(filepath.Join(out, conv.ID+".rttm"), func(w *bufio.Writer) {
		for k := 1; k <= conv.Speakers; k++ {
			for _, iv := range speakerIntervals(log.Events, k) {
				if iv.label == labelHold || iv.label == labelRestart {
					continue
				}
				fmt.Fprintf(w, "SPEAKER %s 1 %.4f %.4f <NA> <NA> speaker_%d <NA> <NA>\n", conv.ID, iv.start, iv.end-iv.start, k)
			}
		}
	})
}

// writeTextGrid writes a long-format Praat TextGrid. Interval tiers must
// tile the whole duration, so the gaps between events are empty intervals.
func writeTextGrid(out string, conv Conversation, log *EventLog) error {
	return writeFile(filepath.Join(out, conv.ID+".TextGrid"), func(w *bufio.Writer) {
		fmt.Fprintf(w, "File type = \"ooTextFile\"\nObject class = \"TextGrid\"\n\nxmin = 0\nxmax = %v\ntiers? <exists>\nsize = %d\nitem []:\n", conv.Duration, conv.Speakers)
		for k := 1; k <= conv.Speakers; k++ {
			var tier []interval
			t := 0.0
			for _, iv := range speakerIntervals(log.Events, k) {
				if iv.start < t {
					continue // an own vocalisation inside another; the log never has one
				}
				if iv.start > t {
					tier = append(tier, interval{t, iv.start, ""})
				}
				tier = append(tier, iv)
				t = iv.end
			}
			if t < conv.Duration {
				tier = append(tier, interval{t, conv.Duration, ""})
			}
			fmt.Fprintf(w, "    item [%d]:\n        class = \"IntervalTier\"\n        name = \"speaker_%d\"\n        xmin = 0\n        xmax = %v\n        intervals: size = %d\n", k, k, conv.Duration, len(tier))
			for i, iv := range tier {
				fmt.Fprintf(w, "        intervals [%d]:\n            xmin = %v\n            xmax = %v\n            text = \"%s\"\n", i+1, iv.start, iv.end, strings.ReplaceAll(iv.label, `"`, `""`))
			}
		}
	})
}

// writeFile writes a file through a temporary name, so a failed export
// leaves no half-written file.
func writeFile(path string, fill func(*bufio.Writer)) error {
	return atomicfile.Write(path, PartialPrefix, func(w io.Writer) error {
		b := bufio.NewWriter(w)
		fill(b)
		return b.Flush()
	})
}
