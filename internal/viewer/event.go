package viewer

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/figure"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/store"
)

// scoredEvent is one gold item of a bundle with what its page needs.
type scoredEvent struct {
	b    *loaded
	eval *evaluate.Evaluation
	task *evaluate.TaskResult
	ref  eventRef
}

// findEvent reads the event named by the query (corpus, system, task, i)
// from the bundle; names are matched against the results, never used as
// keys.
func (s *Server) findEvent(r *http.Request) (*scoredEvent, error) {
	b, err := s.load(r.Context(), r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	i, err := strconv.Atoi(q.Get("i"))
	if err != nil {
		return nil, notFound("Event number %q is not a number.", q.Get("i"))
	}
	for ei := range b.results.Evaluations {
		e := &b.results.Evaluations[ei]
		if e.Corpus != q.Get("corpus") || e.System != q.Get("system") {
			continue
		}
		for ti := range e.Tasks {
			t := &e.Tasks[ti]
			if string(t.Task) != q.Get("task") {
				continue
			}
			if i < 0 || i >= len(t.Events) {
				return nil, notFound("%s on %s, %s has %d events; there is no event %d.", e.System, e.Corpus, t.Task, len(t.Events), i)
			}
			a := b.attributes(e.Corpus)[t.Events[i].Conversation]
			return &scoredEvent{b, e, t, eventRef{e.Corpus, e.System, t.Task, i, t.Events[i], a[0], a[1]}}, nil
		}
	}
	return nil, notFound("Bundle %s has no evaluation of system %q on corpus %q, task %q.", b.id, q.Get("system"), q.Get("corpus"), q.Get("task"))
}

// channelLink is one audio player of the event page.
type channelLink struct {
	Label, Src string
}

// event is one event's page: what happened, its timeline drawn live, and
// the mix and every channel around it.
func (s *Server) event(w http.ResponseWriter, r *http.Request) {
	ev, err := s.findEvent(r)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	row := ev.ref.Row
	start, end := evaluate.Window(row, ev.duration())
	fragment := fmt.Sprintf("#t=%.2f,%.2f", start, end)
	prefix := ev.b.corpusPrefix(ev.ref.Corpus, ev.eval.CorpusHash)
	base := "/bundles/" + ev.b.id + "/audio?" + url.Values{"corpus": {ev.ref.Corpus}, "conv": {row.Conversation}}.Encode()
	channels := []channelLink{{"mix", base + "&channel=mix" + fragment}}
	for k := 1; k <= ev.speakers(); k++ {
		channels = append(channels, channelLink{fmt.Sprintf("speaker %d", k), base + "&channel=" + strconv.Itoa(k) + fragment})
	}
	_, audioErr := s.store.Stat(r.Context(), channelKey(prefix, row.Conversation, 1))
	q := url.Values{"corpus": {ev.ref.Corpus}, "system": {ev.ref.System}, "task": {string(ev.ref.Task)}, "i": {strconv.Itoa(ev.ref.Index)}}
	s.render(w, r, "event.html", map[string]any{"Title": "Event", "B": ev.b.manifest, "E": ev.ref, "Theta": ev.task.Theta,
		"Start": start, "End": end, "Timeline": "/bundles/" + ev.b.id + "/timeline.svg?" + q.Encode(),
		"Channels": channels, "AudioMissing": audioErr != nil, "CorpusStored": ev.b.corpora[ev.ref.Corpus] != nil, "Prefix": prefix, "Prev": ev.neighbour(-1), "Next": ev.neighbour(+1)})
}

// neighbour is the link to the event d places away, or "".
func (ev *scoredEvent) neighbour(d int) string {
	i := ev.ref.Index + d
	if i < 0 || i >= len(ev.task.Events) {
		return ""
	}
	n := ev.ref
	n.Index, n.Row = i, ev.task.Events[i]
	return n.Link(ev.b.id)
}

// duration of the event's conversation from the stored corpus manifest
// (0 when unknown).
func (ev *scoredEvent) duration() float64 {
	if c := ev.conversation(); c != nil {
		return c.Duration
	}
	return 0
}

func (ev *scoredEvent) conversation() *corpus.Conversation {
	if c := ev.b.corpora[ev.ref.Corpus]; c != nil {
		for i := range c.manifest.Conversations {
			if c.manifest.Conversations[i].ID == ev.ref.Row.Conversation {
				return &c.manifest.Conversations[i]
			}
		}
	}
	return nil
}

// speakers is the conversation's channel count: from the corpus manifest,
// else from the predictions.
func (ev *scoredEvent) speakers() int {
	if c := ev.conversation(); c != nil {
		return c.Speakers
	}
	return len(ev.task.Predictions[ev.ref.Row.Conversation])
}

// channelKey is speaker k's channel of conversation conv of the corpus
// stored under prefix.
func channelKey(prefix, conv string, k int) string {
	return keys.MemberFile(prefix, conv, corpus.ChannelName(k))
}

// timelineSVG draws the event's timeline now: the bundle's gold items and
// predictions, the system's stored score track and the stored audio.
func (s *Server) timelineSVG(w http.ResponseWriter, r *http.Request) {
	ev, err := s.findEvent(r)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	tl, err := s.timeline(r.Context(), ev)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	f := bundle.TimelineFigure("timeline", ev.ref.System, ev.ref.Corpus, ev.ref.Task, tl)
	svg, err := figure.Render(f, "svg")
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	_, _ = w.Write(svg)
}

// timeline cuts the event's timeline. Gold comes from the stored corpus
// (anchors, negative spans and excluded intervals), else from the
// bundle's events (anchors and negative spans: a bundle holds no excluded
// intervals); scores and audio from the store when they are there.
func (s *Server) timeline(ctx context.Context, ev *scoredEvent) (evaluate.Timeline, error) {
	row := ev.ref.Row
	conv := row.Conversation
	gold, ok := s.corpusGold(ctx, ev)
	if !ok {
		gold = scoredGold(ev.task.Events, conv)
	}
	var tracks [][]float64
	fps := 0.0
	if err := store.CheckKey(conv); err != nil {
		return evaluate.Timeline{}, notFound("conversation %q: %v", conv, err)
	}
	if store.CheckKey(ev.eval.SystemHash) == nil && store.CheckKey(ev.eval.CorpusHash) == nil {
		data, err := store.GetBytes(ctx, s.store, keys.Track(ev.eval.SystemHash, ev.eval.CorpusHash, conv, ev.ref.Task))
		if err == nil {
			if p, err := score.ParseProbs(data); err == nil && len(p.Conversations) == 1 {
				tracks, fps = p.Conversations[0].Speakers, p.FrameRate
			}
		}
	}
	start, end := evaluate.Window(row, ev.duration())
	tl := evaluate.CutTimeline(gold, tracks, fps, ev.task.Predictions[conv], float64(ev.task.Theta), start, end)
	tl.Reason, tl.Conversation, tl.Event = row.Outcome, conv, row
	step := tl.Step
	if step <= 0 {
		step = 0.02
		tl.Step = step
	}
	prefix := ev.b.corpusPrefix(ev.ref.Corpus, ev.eval.CorpusHash)
	n := int(math.Ceil((tl.End-tl.Start)/step)) + 1
	for k := 1; k <= ev.speakers(); k++ {
		env, err := s.channelEnvelope(ctx, prefix, conv, k, tl.Start, step, n)
		if err != nil {
			tl.Waveform = nil // drawn without audio
			break
		}
		tl.Waveform = append(tl.Waveform, env)
	}
	return tl, nil
}

// channelEnvelope is the envelope of n steps from start of speaker k's
// stored channel, reading only those seconds of it.
func (s *Server) channelEnvelope(ctx context.Context, prefix, conv string, k int, start, step float64, n int) (evaluate.Envelope, error) {
	c, err := s.openChannel(ctx, prefix, conv, k)
	if err != nil {
		return evaluate.Envelope{}, err
	}
	defer c.Close()
	first := int64(math.Floor(start * float64(c.Rate)))
	samples, err := c.Window(first, int64(math.Ceil(float64(n)*step*float64(c.Rate)))+1)
	if err != nil {
		return evaluate.Envelope{}, err
	}
	return envelope(samples, max(first, 0), c.Rate, start, step, n), nil
}

// envelope is the minimum and maximum sample of n steps from start, of
// samples that begin at sample first of their channel.
func envelope(samples []float32, first int64, rate int, start, step float64, n int) evaluate.Envelope {
	env := evaluate.Envelope{Lo: make([]float64, n), Hi: make([]float64, n)}
	at := func(t float64) int {
		return min(len(samples), max(0, int(int64(t*float64(rate))-first)))
	}
	for i := range n {
		a, b := at(start+float64(i)*step), at(start+float64(i+1)*step)
		for _, v := range samples[a:max(a, b)] {
			env.Lo[i], env.Hi[i] = min(env.Lo[i], float64(v)), max(env.Hi[i], float64(v))
		}
	}
	return env
}

// audio serves a channel (channel=K) or the mix of all channels
// (channel=mix) of a conversation of the bundle, with range requests, so
// the page's players seek to the event without fetching the whole file: a
// range reads only its bytes of a channel, and only its samples of each
// channel for the mix.
func (s *Server) audio(w http.ResponseWriter, r *http.Request) {
	b, err := s.load(r.Context(), r.PathValue("id"))
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	q := r.URL.Query()
	conv, channel := q.Get("conv"), q.Get("channel")
	var eval *evaluate.Evaluation
	for i := range b.results.Evaluations {
		e := &b.results.Evaluations[i]
		if e.Corpus == q.Get("corpus") && slices.ContainsFunc(e.Tasks, func(t evaluate.TaskResult) bool {
			return slices.ContainsFunc(t.Events, func(row evaluate.EventRow) bool { return row.Conversation == conv })
		}) {
			eval = e
			break
		}
	}
	if eval == nil {
		s.fail(w, http.StatusNotFound, fmt.Sprintf("Bundle %s scored no conversation %q of corpus %q.", b.id, conv, q.Get("corpus")))
		return
	}
	k, convErr := strconv.Atoi(channel)
	if channel != "mix" && (convErr != nil || k < 1 || k > 64) {
		s.fail(w, http.StatusNotFound, fmt.Sprintf("Channel %q: want mix or a speaker number.", channel))
		return
	}
	missing := func(err error) error {
		return s.missing(err, "The store has no audio for %s, channel %s (corpus %s).", conv, channel, eval.Corpus)
	}
	prefix := b.corpusPrefix(eval.Corpus, eval.CorpusHash)
	if channel != "mix" {
		c, err := s.openChannel(r.Context(), prefix, conv, k)
		if err != nil {
			s.failErr(w, r, missing(err))
			return
		}
		defer c.Close()
		serveChannel(w, r, c)
		return
	}
	channels, err := s.openChannels(r.Context(), prefix, conv, s.speakersOf(r.Context(), b, eval.Corpus, prefix, conv))
	if err != nil {
		s.failErr(w, r, missing(err))
		return
	}
	defer closeAll(channels)
	mix, err := newMix(conv, channels)
	if err != nil {
		s.failErr(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "audio/wav")
	w.Header().Set("Cache-Control", "max-age=86400, immutable")
	http.ServeContent(w, r, "", time.Time{}, mix)
}

// speakersOf is a conversation's channel count: from the stored corpus
// manifest, else as many channels as the store holds (speaker_1 on, up to
// 64).
func (s *Server) speakersOf(ctx context.Context, b *loaded, corpusName, prefix, conv string) int {
	if c := b.corpora[corpusName]; c != nil {
		for _, cv := range c.manifest.Conversations {
			if cv.ID == conv {
				return cv.Speakers
			}
		}
	}
	n := 1
	for n < 64 {
		if _, err := s.store.Stat(ctx, channelKey(prefix, conv, n+1)); err != nil {
			break
		}
		n++
	}
	return n
}
