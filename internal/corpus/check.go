package corpus

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
)

// BoundaryTolerance is how far the speech energy on a channel may start or
// end from where the event log says: within 10 ms.
const BoundaryTolerance = 0.010

// boundaryLookout is how far beyond the tolerance Check looks for speech
// that began early or ran late.
const boundaryLookout = 0.02

// Problem is one thing Check found wrong.
type Problem struct {
	Conversation string // "" for the corpus as a whole
	Msg          string
}

func (p Problem) String() string {
	if p.Conversation == "" {
		return p.Msg
	}
	return p.Conversation + ": " + p.Msg
}

// CheckReport is Check's result.
type CheckReport struct {
	Kind          string // the corpus's kind
	Conversations int
	Boundaries    int // event boundaries compared with the audio (MPTB)
	Annotations   int // annotated segments checked against the audio (TurnBench)
	Problems      []Problem
}

// Check verifies a corpus: the manifest, no stray or unfinished folders,
// every file's sha256, WAV format and lengths, no clipped samples, valid
// event logs, and that every event boundary is where the speech energy on
// its speaker's channel starts or ends (within BoundaryTolerance). For a
// TurnBench corpus it checks the hashes, that both channels have the
// manifest's length, and that every annotated segment lies inside the
// audio; for an AMI corpus (real recordings) clipping and boundaries are
// not checked.
func Check(dir string, lim limits.Limits) (*CheckReport, error) {
	c, err := Open(dir, lim)
	if err != nil {
		return nil, err
	}
	r := &CheckReport{Kind: c.Manifest.Kind, Conversations: len(c.Manifest.Conversations)}
	listed := map[string]bool{ManifestName: true}
	for _, conv := range c.Manifest.Conversations {
		listed[conv.ID] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !listed[e.Name()] {
			r.Problems = append(r.Problems, Problem{Msg: fmt.Sprintf("%s is not in the manifest (left by an unfinished generation?)", e.Name())})
		}
	}
	for _, conv := range c.Manifest.Conversations {
		check := func() []string { return c.checkConversation(conv, &r.Boundaries) }
		if c.Manifest.Kind == KindTurnBench {
			check = func() []string { return c.checkTurnBench(conv, &r.Annotations) }
		}
		for _, msg := range check() {
			r.Problems = append(r.Problems, Problem{Conversation: conv.ID, Msg: msg})
		}
	}
	return r, nil
}

func (c *Corpus) checkConversation(conv Conversation, boundaries *int) []string {
	var out []string
	if out = c.checkFiles(conv); len(out) > 0 {
		return out
	}
	log, err := c.Events(conv)
	if err != nil {
		return []string{err.Error()}
	}
	for k := range conv.Speakers {
		x, err := c.channel16k(conv, k+1)
		if err != nil {
			out = append(out, err.Error())
			continue
		}
		if c.Manifest.Kind == KindAMI {
			// Real recordings: clipping is the source's, and word times from
			// forced alignment do not meet the 10 ms energy tolerance.
			continue
		}
		if n := clipped(x); n > 0 {
			out = append(out, fmt.Sprintf("%s: %d clipped samples", ChannelName(k+1), n))
		}
		own := eventsOf(log.Events, k+1)
		out = append(out, checkBoundaries(x, own, boundaries)...)
	}
	return out
}

// checkFiles compares a conversation's folder with the manifest: no
// unexpected files, every listed file a regular file with its sha256.
func (c *Corpus) checkFiles(conv Conversation) []string {
	var out []string
	folder := filepath.Join(c.Dir, conv.ID)
	if fi, err := os.Lstat(folder); err != nil {
		return []string{err.Error()}
	} else if !fi.IsDir() {
		return []string{fmt.Sprintf("%s: %v", folder, notAFolder(fi))}
	}
	entries, err := os.ReadDir(folder)
	if err != nil {
		return []string{err.Error()}
	}
	for _, e := range entries {
		if _, ok := conv.Files[e.Name()]; !ok {
			out = append(out, fmt.Sprintf("unexpected file %s", e.Name()))
		}
	}
	for _, name := range FilesOf(c.Manifest.Kind, conv) {
		if err := c.VerifyFile(conv, name); err != nil {
			out = append(out, err.Error())
		}
	}
	return out
}

// checkTurnBench checks an ingested TurnBench conversation: files, channel
// lengths, and annotated segments inside [0, duration].
func (c *Corpus) checkTurnBench(conv Conversation, segments *int) []string {
	out := c.checkFiles(conv)
	if len(out) > 0 {
		return out
	}
	for k := range conv.Speakers {
		if _, err := c.channel16k(conv, k+1); err != nil {
			out = append(out, err.Error())
		}
	}
	if conv.Unlabelled {
		return out
	}
	if _, err := c.Labels(conv); err != nil {
		return append(out, err.Error())
	}
	convs, _, err := c.annotations(conv)
	if err != nil {
		return append(out, err.Error())
	}
	for k, tracks := range convs[0].Speakers {
		for a, track := range tracks {
			for i, s := range track {
				*segments++
				if s.Start < 0 || s.End < s.Start || s.End > conv.Duration+AnnotationTimeTolerance {
					out = append(out, fmt.Sprintf("%s speaker_%d annotator %s segment %d [%g, %g]: outside the audio [0, %g]",
						AnnotationsName, k+1, AnnotatorKeys[a], i, s.Start, s.End, conv.Duration))
				}
			}
		}
	}
	return out
}

// clipped counts samples at full scale.
func clipped(x []float32) int {
	n := 0
	for _, v := range x {
		if math.Abs(float64(v)) >= 32767.0/32768 {
			n++
		}
	}
	return n
}

func eventsOf(events []floor.Event, speaker int) []floor.Event {
	var out []floor.Event
	for _, e := range events {
		if e.Speaker == speaker {
			out = append(out, e)
		}
	}
	return out
}

// checkBoundaries compares every onset and offset of a speaker's events
// (turn starts and ends, hold and restart edges) with the channel's speech energy:
// speech must be present in the 10 ms inside each boundary and absent from
// 10 to 30 ms outside it, so speech that starts or ends more than
// BoundaryTolerance away from the log fails.
func checkBoundaries(x []float32, own []floor.Event, count *int) []string {
	n := measureNoise(x, own)
	var out []string
	tol, look := BoundaryTolerance, BoundaryTolerance+boundaryLookout
	check := func(e floor.Event, t float64, what string, onset bool) {
		*count++
		inFrom, outFrom, outTo := t, t-look, t-tol
		if !onset {
			inFrom, outFrom, outTo = t-tol, t+tol, t+look
		}
		switch {
		case !n.speechIn(x, inFrom, inFrom+tol):
			out = append(out, fmt.Sprintf("speaker %d %s %s at %.3f s: no speech energy within %.0f ms inside it", e.Speaker, e.Kind, what, t, tol*1000))
		case !n.quietIn(x, outFrom, outTo):
			out = append(out, fmt.Sprintf("speaker %d %s %s at %.3f s: speech energy %.0f to %.0f ms outside it", e.Speaker, e.Kind, what, t, tol*1000, look*1000))
		}
	}
	for _, e := range own {
		check(e, e.Start, "start", true)
		for _, h := range e.Holds {
			check(e, h.Start, "hold start", false)
			check(e, h.End, "hold end", true)
		}
		for _, r := range e.Restarts {
			check(e, r.Start, "cut-off", false)
			check(e, r.End, "restart", true)
		}
		check(e, e.End, "end", false)
	}
	return out
}
