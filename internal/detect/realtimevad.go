package detect

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/credential"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/names"
	"github.com/floorbench/floorbench/internal/redact"
)

// RealtimeVADFamily is the family that scores a conversation with an
// OpenAI-Realtime-compatible endpoint's own turn detection
// (docs/systems.md#provider-vad).
const RealtimeVADFamily = "realtime-vad"

// The turn detections a realtime-vad system asks for, and its INT rules.
const (
	serverVAD   = "server_vad"
	semanticVAD = "semantic_vad"
	// intOnset: every speech_started is an INT, as TurnBench's OpenAI
	// rows count them; intOverlap: only one while another speaker's
	// endpoint reports speech.
	intOnset   = "onset"
	intOverlap = "overlap"
	// timingStamp: an event commits at its own time stamp, moved to the
	// decision as the API defines it; timingArrival: at the audio sent
	// when it arrived, as TurnBench's code stamps it.
	timingStamp   = "stamp"
	timingArrival = "arrival"
)

var realtimeVADParams = []Param{
	{Name: "url", Kind: KindText, Doc: "the endpoint's WebSocket URL: ws:// or wss://, without user, query or fragment"},
	{Name: "model", Kind: KindText, Default: "gpt-realtime", Doc: "the model, added to the URL as ?model="},
	{Name: "api", Kind: KindString, Default: "ga", Choices: []string{"beta", "ga"}, Doc: "the shape of session.update: beta or ga"},
	{Name: "turn_detection", Kind: KindString, Default: serverVAD, Choices: []string{serverVAD, semanticVAD}, Doc: "the endpoint's turn detection"},
	{Name: "threshold", Kind: KindFloat, Default: 0.5, Doc: "server_vad: activation threshold in [0, 1]"},
	{Name: "prefix_padding_ms", Kind: KindInt, Default: 300, Doc: "server_vad: audio kept before detected speech; audio_start_ms includes it, so an INT commits this long after audio_start_ms"},
	{Name: "silence_duration_ms", Kind: KindInt, Default: 500, Doc: "server_vad: silence that ends speech; audio_end_ms includes it"},
	{Name: "eagerness", Kind: KindString, Default: "auto", Choices: []string{"auto", "low", "medium", "high"}, Doc: "semantic_vad: how soon it ends a turn"},
	{Name: "rate", Kind: KindFloat, Default: 1.0, Doc: "playback rate of the audio sent: 1 is real time, at most 50 (an endpoint may answer otherwise when pushed faster)"},
	{Name: "int_rule", Kind: KindString, Default: intOnset, Choices: []string{intOnset, intOverlap},
		Doc: "onset: every speech_started is an INT (TurnBench's rule); overlap: only one while another speaker's endpoint reports speech"},
	{Name: "timing", Kind: KindString, Default: timingStamp, Choices: []string{timingStamp, timingArrival},
		Doc: "stamp: an event commits at its time stamp (audio_end_ms; audio_start_ms plus the prefix padding); arrival: at the audio sent when it arrived (TurnBench's code, at rate 1)"},
	{Name: "frame_rate_hz", Kind: KindFloat, Default: 100.0, Doc: "frame rate of the score tracks"},
	{Name: "credential_env", Kind: KindText, Default: "", Run: true, Doc: "environment variable holding the endpoint's credential (empty: none)"},
	{Name: "auth_header", Kind: KindText, Default: "", Run: true, Doc: "header that carries the credential (empty: Authorization: Bearer)"},
}

// The forms of realtime-vad's text parameters, as the agents' settings
// take them.
var (
	envName    = names.MustForm(`^[A-Za-z_][A-Za-z0-9_]*$`, 128)
	headerName = names.MustForm("^[A-Za-z0-9!#$%&'*+.^_`|~-]+$", 128)
	modelName  = names.MustForm(`^[A-Za-z0-9][A-Za-z0-9._:/-]*$`, 128)
)

// checkRealtimeVAD reports values a realtime-vad system cannot work with.
// The URL is never quoted: a value in the wrong place may be a credential.
func checkRealtimeVAD(v values) error {
	u, err := url.Parse(v.string("url"))
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return errors.New("parameter url: want a ws:// or wss:// URL without user, query or fragment (the credential goes in credential_env, the model in model)")
	}
	if !modelName.Match(v.string("model")) {
		return errors.New("parameter model: want a model name (letters, digits and ._:/-, at most 128)")
	}
	if th := v.float("threshold"); !(th >= 0 && th <= 1) {
		return fmt.Errorf("parameter threshold: want a value in [0, 1], got %v", th)
	}
	for _, name := range []string{"prefix_padding_ms", "silence_duration_ms"} {
		if ms := v.int(name); ms < 0 || ms > 10000 {
			return fmt.Errorf("parameter %s: want 0 to 10000 ms, got %d", name, ms)
		}
	}
	if err := proto.CheckRate(v.float("rate")); err != nil {
		return fmt.Errorf("parameter rate: %w", err)
	}
	if _, err := v.frameRate(); err != nil {
		return err
	}
	if e := v.string("credential_env"); e != "" && !envName.Match(e) {
		return errors.New("parameter credential_env: want the name of an environment variable")
	}
	if h := v.string("auth_header"); h != "" && !headerName.Match(h) {
		return errors.New("parameter auth_header: want an HTTP header name")
	}
	return nil
}

// realtimeVAD is an endpoint's turn detection as a detector: each channel
// streamed to its own session, the speech events it answers turned into
// EOT and INT pulses (docs/systems.md#provider-vad).
type realtimeVAD struct {
	ep      proto.Endpoint
	where   string
	request realtimeRequest
	fps     float64
	intRule string
	timing  string
	// onsetMs is how long after speech_started's audio_start_ms the
	// endpoint decided: the prefix padding it includes (server_vad).
	onsetMs int64
	answers AnswerCache
}

// realtimeRequest is what decides an endpoint's answer to one channel,
// less the audio: with the audio's SHA-256 it is the answer's cache key.
// The credential is not in it: it changes who pays, not what is answered.
type realtimeRequest struct {
	Family        string            `json:"family"`
	Version       int               `json:"family_version"`
	URL           string            `json:"url"`
	Model         string            `json:"model"`
	API           string            `json:"api"`
	TurnDetection string            `json:"turn_detection"`
	VAD           proto.RealtimeVAD `json:"vad"`
	Rate          float64           `json:"rate"`
	AudioSHA256   string            `json:"audio_sha256,omitempty"`
}

func openRealtimeVAD(s *System, rt Runtime) (Detector, error) {
	v := s.values
	var cred credential.Secret
	if name := v.string("credential_env"); name != "" {
		c, err := credential.FromEnv(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", RealtimeVADFamily, err)
		}
		cred = c
	}
	td := v.string("turn_detection")
	vad := proto.RealtimeVAD{CreateResponse: new(false)}
	var onset int64
	if td == serverVAD {
		vad.Threshold = new(v.float("threshold"))
		vad.PrefixPaddingMs = new(v.int("prefix_padding_ms"))
		vad.SilenceDurationMs = new(v.int("silence_duration_ms"))
		onset = int64(v.int("prefix_padding_ms"))
	} else {
		vad.Eagerness = v.string("eagerness")
	}
	opts := proto.RealtimeOptions{Model: v.string("model"), TurnDetection: td, API: v.string("api"), VAD: vad}
	// The endpoint gets the default handshake timeout in wall time, not
	// session time: audio sent faster does not make it answer faster.
	rate := v.float("rate")
	ep := proto.Endpoint{Protocol: proto.RealtimeName, URL: v.string("url"), Credential: cred,
		AuthHeader: v.string("auth_header"), Rate: rate, Realtime: opts,
		HandshakeTimeout: time.Duration(float64(proto.DefaultHandshakeTimeout) * rate)}
	return &realtimeVAD{
		ep:    ep,
		where: "realtime endpoint at " + ep.URL,
		request: realtimeRequest{Family: RealtimeVADFamily, Version: s.family.Version, URL: ep.URL, Model: opts.Model,
			API: opts.API, TurnDetection: td, VAD: vad, Rate: ep.Rate},
		fps: v.float("frame_rate_hz"), intRule: v.string("int_rule"), timing: v.string("timing"), onsetMs: onset, answers: rt.Answers,
	}, nil
}

// Detect streams every channel to the endpoint at once, each in its own
// session, or reads the answers stored for them, and turns the answers
// into tracks. The first channel to fail stops the others; the error is
// that channel's.
func (d *realtimeVAD) Detect(ctx context.Context, c *Conversation) (*Scores, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	channels, err := wholeTimeline(c)
	if err != nil {
		return nil, err
	}
	answers := make([]realtimeAnswer, len(channels))
	g, run := errgroup.WithContext(ctx)
	for k, x := range channels {
		g.Go(func() error {
			var err error
			if answers[k], err = d.answer(run, x); err != nil {
				return fmt.Errorf("%s: speaker_%d: %w", RealtimeVADFamily, k+1, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return d.scores(answers, frameCount(c.Duration, d.fps)), nil
}

func (d *realtimeVAD) Close() error { return nil }

// realtimeAnswer is what an endpoint answered to one channel: its speech
// events, in the order they came. It is what the cache holds.
type realtimeAnswer struct {
	Events []vadEvent `json:"events"`
}

// vadEvent is one speech event: speech_started with its audio_start_ms,
// or speech_stopped with its audio_end_ms, and the ms of audio the client
// had sent when it arrived.
type vadEvent struct {
	Kind    proto.EventKind `json:"kind"`
	Ms      int64           `json:"ms"`
	Arrived int64           `json:"arrived_ms"`
}

// check bounds an answer to a channel of frames 20 ms frames, as it came
// or as it was stored: known kinds, time stamps inside the audio sent, at
// most two events per frame.
func (a realtimeAnswer) check(frames int) error {
	if limit := 2*frames + 2; len(a.Events) > limit {
		return fmt.Errorf("%d speech events for %d ms of audio; at most %d", len(a.Events), frames*20, limit)
	}
	sent := int64(frames)*20 + 1 // the client's priming puts its audio 0.25 ms late
	for i, e := range a.Events {
		if e.Kind != proto.SpeechStarted && e.Kind != proto.SpeechStopped {
			return fmt.Errorf("event %d is of kind %s, not a speech event", i, redact.Name(string(e.Kind)))
		}
		if e.Ms < 0 || e.Ms > sent {
			return fmt.Errorf("event %d (%s) is at %d ms, outside the %d ms of audio sent", i, e.Kind, e.Ms, frames*20)
		}
		if e.Arrived < 0 || e.Arrived > int64(frames)*20 {
			return fmt.Errorf("event %d (%s) arrived at %d ms, outside the %d ms of audio sent", i, e.Kind, e.Arrived, frames*20)
		}
	}
	return nil
}

// parseAnswer reads a stored answer to a channel of frames 20 ms frames
// and checks it as one that just arrived.
func parseAnswer(data []byte, frames int) (realtimeAnswer, error) {
	var a realtimeAnswer
	if err := json.Unmarshal(data, &a); err != nil {
		return realtimeAnswer{}, errors.New("not an answer of a realtime endpoint")
	}
	return a, a.check(frames)
}

// answer is the endpoint's answer to one channel: the stored one, or the
// endpoint's, stored once it is complete.
func (d *realtimeVAD) answer(ctx context.Context, x []float32) (realtimeAnswer, error) {
	frames := (len(x) + proto.FrameSamples - 1) / proto.FrameSamples
	req := d.request
	req.AudioSHA256 = samplesSHA256(x)
	body, _ := json.Marshal(req) // strings and numbers
	request := digest.Identity(body)
	if d.answers != nil {
		data, ok, err := d.answers.Get(ctx, request)
		if err != nil {
			return realtimeAnswer{}, fmt.Errorf("read stored answer: %w", err)
		}
		if ok {
			a, err := parseAnswer(data, frames)
			if err != nil {
				return realtimeAnswer{}, fmt.Errorf("stored answer to request %s: %w", request, err)
			}
			return a, nil
		}
	}
	a, err := d.listen(ctx, x, frames)
	if err != nil {
		return realtimeAnswer{}, err
	}
	if d.answers != nil {
		data, _ := json.Marshal(a) // kinds and numbers
		if err := d.answers.Put(ctx, request, data); err != nil {
			return realtimeAnswer{}, fmt.Errorf("store answer: %w", err)
		}
	}
	return a, nil
}

// samplesSHA256 is the SHA-256 of a channel's samples as little-endian
// float32.
func samplesSHA256(x []float32) string {
	h := sha256.New()
	buf := make([]byte, 4*proto.FrameSamples)
	for i := 0; i < len(x); i += proto.FrameSamples {
		n := 0
		for _, v := range x[i:min(i+proto.FrameSamples, len(x))] {
			binary.LittleEndian.PutUint32(buf[n:], math.Float32bits(v))
			n += 4
		}
		h.Write(buf[:n])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// listen streams one channel to the endpoint in 20 ms frames at the
// system's rate, the last frame padded with silence, then clears the
// endpoint's input buffer: the endpoint answers the clear after every
// event about the audio before it, so the events read until then are its
// whole answer.
func (d *realtimeVAD) listen(ctx context.Context, x []float32, frames int) (realtimeAnswer, error) {
	sess, err := proto.Dial(ctx, d.ep)
	if err != nil {
		return realtimeAnswer{}, err
	}
	defer sess.Close()
	clearer, ok := sess.(proto.InputClearer)
	if !ok {
		return realtimeAnswer{}, fmt.Errorf("the %s session cannot clear its input", d.ep.Protocol)
	}
	recvCtx, stopRecv := context.WithCancel(ctx)
	defer stopRecv()
	sendCtx, stopSend := context.WithCancel(ctx)
	defer stopSend()
	got := make(chan listened, 1)
	var asked atomic.Bool // the clear is about to go out
	go func() {
		a, err := d.collect(recvCtx, sess, frames, &asked)
		if err != nil {
			stopSend()
		}
		got <- listened{a, err}
	}()
	if err := d.send(sendCtx, sess, clearer, x, &asked); err != nil {
		stopRecv()
		if r := <-got; r.err != nil && !errors.Is(r.err, context.Canceled) {
			return realtimeAnswer{}, r.err
		}
		return realtimeAnswer{}, err
	}
	// Wall time, not session time: an endpoint fed faster than real time
	// may still be working through the audio when the clear arrives.
	wait, cancel := context.WithTimeout(ctx, clearTimeout)
	defer cancel()
	defer context.AfterFunc(wait, stopRecv)()
	r := <-got
	if r.err != nil && ctx.Err() == nil && wait.Err() != nil {
		return realtimeAnswer{}, fmt.Errorf("the %s did not answer input_audio_buffer.clear within %v", d.where, clearTimeout)
	}
	return r.answer, r.err
}

// clearTimeout bounds the wait for an endpoint's answer to the clear, in
// wall time.
const clearTimeout = 30 * time.Second

// listened is what collect returns.
type listened struct {
	answer realtimeAnswer
	err    error
}

// send sends the channel, then the clear, setting asked just before.
func (d *realtimeVAD) send(ctx context.Context, sess proto.Session, clearer proto.InputClearer, x []float32, asked *atomic.Bool) error {
	for i := 0; i < len(x); i += proto.FrameSamples {
		frame := make([]float32, proto.FrameSamples)
		copy(frame, x[i:min(i+proto.FrameSamples, len(x))])
		if err := sess.Send(ctx, frame); err != nil {
			return err
		}
	}
	asked.Store(true)
	return clearer.ClearInput(ctx)
}

// collect reads the session's outputs until the endpoint has cleared its
// input as asked, keeping the speech events; an error event from the
// endpoint, an event without its time stamp, too many events or a clear
// nobody asked for end the session.
func (d *realtimeVAD) collect(ctx context.Context, sess proto.Session, frames int, asked *atomic.Bool) (realtimeAnswer, error) {
	var a realtimeAnswer
	for {
		o, err := sess.Recv(ctx)
		if err != nil {
			return a, err
		}
		if o.Event == nil {
			continue
		}
		switch e := o.Event; e.Kind {
		case proto.SpeechStarted, proto.SpeechStopped:
			if e.AgentMs < 0 {
				return a, fmt.Errorf("%w: the %s sent %s without its time stamp", proto.ErrProtocol, d.where, e.Kind)
			}
			// Input frame k goes out at (k+1)·20 ms of session time: the
			// session time an event arrived at is the audio sent by then.
			arrived := min(o.At.Milliseconds(), int64(frames)*20)
			a.Events = append(a.Events, vadEvent{Kind: e.Kind, Ms: e.AgentMs, Arrived: arrived})
			if err := a.check(frames); err != nil {
				return a, fmt.Errorf("%w: the %s sent %v", proto.ErrProtocol, d.where, err)
			}
		case proto.ProviderError:
			return a, fmt.Errorf("the %s reported an error: %s: %s", d.where, e.Code, e.Message)
		case proto.InputCleared:
			if !asked.Load() {
				return a, fmt.Errorf("%w: the %s cleared its input before the last frame was sent", proto.ErrProtocol, d.where)
			}
			return a, nil
		}
	}
}

// scores turns the answers into tracks by the rule of
// docs/systems.md#provider-vad: a speech_stopped is an EOT of its speaker
// at audio_end_ms; a speech_started is an INT at audio_start_ms plus the
// prefix padding (timing arrival: each at the audio sent when it
// arrived), under int_rule overlap only while another speaker's endpoint
// reports speech. Each commits on the frame that ends first at or
// after its time.
func (d *realtimeVAD) scores(answers []realtimeAnswer, frames int) *Scores {
	s := &Scores{FrameRate: d.fps, EOT: make([][]float64, len(answers)), INT: make([][]float64, len(answers))}
	for k, a := range answers {
		s.EOT[k], s.INT[k] = make([]float64, frames), make([]float64, frames)
		for _, e := range a.Events {
			t := d.commitMs(e)
			switch {
			case e.Kind == proto.SpeechStopped:
				pulse(s.EOT[k], t, d.fps)
			case d.intRule == intOnset || d.othersSpeak(answers, k, t):
				pulse(s.INT[k], t, d.fps)
			}
		}
	}
	return s
}

// commitMs is when the endpoint decided an event, in ms of the channel.
func (d *realtimeVAD) commitMs(e vadEvent) int64 {
	if d.timing == timingArrival {
		return e.Arrived
	}
	if e.Kind == proto.SpeechStarted {
		return e.Ms + d.onsetMs
	}
	return e.Ms
}

// othersSpeak reports whether a speaker other than k is in speech at t by
// its endpoint's events decided by then: the latest of them (the later
// one on a tie) is a speech_started.
func (d *realtimeVAD) othersSpeak(answers []realtimeAnswer, k int, t int64) bool {
	for j, a := range answers {
		if j == k {
			continue
		}
		latest, speaking := int64(-1), false
		for _, e := range a.Events {
			if c := d.commitMs(e); c <= t && c >= latest {
				latest, speaking = c, e.Kind == proto.SpeechStarted
			}
		}
		if speaking {
			return true
		}
	}
	return false
}

// pulse sets to 1 the frame whose end is the first at or after ms: frame
// ceil(ms·fps/1000) − 1 (frame 0 for ms 0). A time after the last frame's
// end is past the conversation and sets nothing.
func pulse(track []float64, ms int64, fps float64) {
	x := float64(ms) * fps / 1000
	if r := math.Round(x); math.Abs(x-r) < 1e-9 {
		x = r
	}
	if i := max(int(math.Ceil(x))-1, 0); i < len(track) {
		track[i] = 1
	}
}
