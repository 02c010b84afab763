package proto

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/coder/websocket"

	"github.com/floorbench/floorbench/internal/audio"
)

// RealtimeName is the OpenAI-Realtime-style protocol (docs/agents.md#realtime).
const RealtimeName = "realtime"

// realtimeReadLimit bounds one event: a delta of a few seconds of audio.
const realtimeReadLimit = 8 << 20

func init() {
	protocols[RealtimeName] = dialRealtime
	servers[RealtimeName] = serveRealtime
}

// RealtimeOptions are the session settings a realtime client sends.
type RealtimeOptions struct {
	Model        string // added to the URL as ?model= unless it names one
	Voice        string
	Instructions string
	// TurnDetection is server_vad (the default), semantic_vad, or none
	// (turn detection off: only for agents that take turns without it).
	TurnDetection string
	// API is the shape of session.update: beta (the default: flat
	// pcm16 formats, and the OpenAI-Beta: realtime=v1 header) or ga
	// (type realtime, formats under audio).
	API string
	// VAD holds the turn detection's parameters, sent with its type; its
	// zero value leaves every one to the endpoint's default.
	VAD RealtimeVAD
}

// RealtimeVAD are the parameters of a realtime endpoint's turn detection
// a session may set: threshold, prefix_padding_ms and silence_duration_ms
// of server_vad, eagerness of semantic_vad, and create_response, false
// for a session that only listens to the turn detection. Nil and empty
// fields are left out.
type RealtimeVAD struct {
	Threshold         *float64 `json:"threshold,omitempty"`
	PrefixPaddingMs   *int     `json:"prefix_padding_ms,omitempty"`
	SilenceDurationMs *int     `json:"silence_duration_ms,omitempty"`
	Eagerness         string   `json:"eagerness,omitempty"`
	CreateResponse    *bool    `json:"create_response,omitempty"`
}

// rtTurnDetection is a turn_detection object: its type and parameters.
// InterruptResponse, which floorbench's client never sets, is read from
// session.updated: absent or true, the endpoint cancels a response itself
// when its turn detection hears the user start.
type rtTurnDetection struct {
	Type string `json:"type"`
	RealtimeVAD
	InterruptResponse *bool `json:"interrupt_response,omitempty"`
}

// interrupts reports whether the turn detection cancels a response in
// progress itself on speech_started, as server_vad and semantic_vad do
// unless interrupt_response is false.
func (td rtTurnDetection) interrupts() bool {
	return td.Type != "none" && (td.InterruptResponse == nil || *td.InterruptResponse)
}

// CheckRealtimeOptions reports a turn detection or API it does not know.
func CheckRealtimeOptions(o RealtimeOptions) error {
	switch o.TurnDetection {
	case "", realtimeVAD, "semantic_vad", "none":
	default:
		return fmt.Errorf("realtime turn_detection %q: want server_vad, semantic_vad or none", o.TurnDetection)
	}
	switch o.API {
	case "", "beta", "ga":
	default:
		return fmt.Errorf("realtime api %q: want beta or ga", o.API)
	}
	return nil
}

// sessionUpdate is the session.update the client sends: PCM16 at 24 kHz
// both ways and the endpoint's settings.
func (o RealtimeOptions) sessionUpdate() rtEvent {
	td := json.RawMessage(`null`)
	if o.TurnDetection != "none" {
		t := o.TurnDetection
		if t == "" {
			t = realtimeVAD
		}
		td, _ = json.Marshal(rtTurnDetection{Type: t, RealtimeVAD: o.VAD})
	}
	s := &rtSession{Instructions: o.Instructions}
	if o.API == "ga" {
		pcm := &rtFormat{Type: realtimeGAType, Rate: realtimeRate}
		s.Type, s.OutputModalities = realtimeSession, []string{"audio"}
		s.Audio = &rtAudio{Input: &rtAudioSide{Format: pcm, TurnDetection: td}, Output: &rtAudioSide{Format: pcm, Voice: o.Voice}}
	} else {
		s.Modalities, s.Voice = []string{"audio", "text"}, o.Voice
		s.InputAudioFormat, s.OutputAudioFormat, s.TurnDetection = realtimeBeta, realtimeBeta, td
	}
	return rtEvent{Type: "session.update", Session: s}
}

// realtimeURL is the endpoint's URL with the model added.
func realtimeURL(raw, model string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("realtime endpoint URL %s does not parse", redactURL(raw))
	}
	if model != "" && u.Query().Get("model") == "" {
		q := u.Query()
		q.Set("model", model)
		u.RawQuery = q.Encode()
	}
	return u.String(), nil
}

// dialRealtime opens a realtime session: connect, wait for
// session.created, send session.update, check the formats of
// session.updated, start.
func dialRealtime(ctx context.Context, ep Endpoint, clock *Clock) (Session, error) {
	if err := CheckRealtimeOptions(ep.Realtime); err != nil {
		return nil, err
	}
	u, err := realtimeURL(ep.URL, ep.Realtime.Model)
	if err != nil {
		return nil, err
	}
	ep.URL = u
	var extra map[string][]string
	if ep.Realtime.API != "ga" {
		extra = map[string][]string{"OpenAI-Beta": {"realtime=v1"}}
	}
	conn, err := connect(ctx, ep, clock, extra)
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(realtimeReadLimit)
	interrupts, err := realtimeHandshake(ctx, ep, clock, conn)
	if err != nil {
		conn.CloseNow()
		return nil, fmt.Errorf("%s: %w", ep.where(), err)
	}
	c := &realtimeClient{in: newRealtimeInput(), out: map[string]*audio.Resampler{}, cut: map[string]bool{}, serverCancels: interrupts}
	return realtimeClientSession{startSession(ep, conn, clock, c, 0)}, nil
}

// realtimeClientSession is a client session of the realtime protocol, whose
// endpoint keeps an input buffer the client may clear.
type realtimeClientSession struct{ *session }

// InputClearer is a session whose endpoint keeps an input audio buffer
// (realtime). ClearInput sends input_audio_buffer.clear; the endpoint's
// input_audio_buffer.cleared comes back as an event of kind InputCleared,
// after every event it sent about the audio before it.
type InputClearer interface {
	ClearInput(ctx context.Context) error
}

// ClearInput asks the endpoint to drop the input it holds. It is called
// from the goroutine that calls Send.
func (s realtimeClientSession) ClearInput(ctx context.Context) error {
	return s.write(ctx, encodeRealtime(rtEvent{Type: "input_audio_buffer.clear"}))
}

// realtimeHandshake opens the session; it reports whether the endpoint's
// turn detection cancels a response itself when it hears the user start
// (session.updated's, else the one asked for).
func realtimeHandshake(ctx context.Context, ep Endpoint, clock *Clock, conn *websocket.Conn) (interrupts bool, err error) {
	if _, err := awaitEvent(ctx, ep, clock, conn, "session.created"); err != nil {
		return false, err
	}
	asked := ep.Realtime.sessionUpdate()
	update := encodeRealtime(asked)
	wctx, cancel := clock.WithTimeout(ctx, ep.HandshakeTimeout)
	defer cancel()
	if err := conn.Write(wctx, update.typ, update.data); err != nil {
		return false, handshakeError(wctx, ep, "sending session.update", err)
	}
	e, err := awaitEvent(ctx, ep, clock, conn, "session.updated")
	if err != nil {
		return false, err
	}
	if e.Session == nil {
		return false, fmt.Errorf("%w: session.updated has no session", ErrProtocol)
	}
	if err := e.Session.formats(ep.scrub); err != nil {
		return false, err
	}
	td, err := e.Session.turnDetection()
	if err != nil || td.Type == "" {
		td, _ = asked.Session.turnDetection()
	}
	return td.interrupts(), nil
}

// awaitEvent reads events until one of type want, within the handshake
// timeout; an error event is the agent's refusal.
func awaitEvent(ctx context.Context, ep Endpoint, clock *Clock, conn *websocket.Conn, want string) (rtEvent, error) {
	ctx, cancel := clock.WithTimeout(ctx, ep.HandshakeTimeout)
	defer cancel()
	for {
		typ, data, err := conn.Read(ctx)
		if err != nil {
			return rtEvent{}, handshakeError(ctx, ep, "waiting for "+want, err)
		}
		e, err := parseRealtime(typ, data)
		switch {
		case err != nil:
			return e, err
		case e.Type == want:
			return e, nil
		case e.Type == "error":
			code, msg := "", ""
			if e.Error != nil {
				code, msg = e.Error.Code, e.Error.Message
			}
			return e, fmt.Errorf("%w: the agent refused the session: %s: %s", ErrProtocol, ep.scrub(code), ep.scrub(msg))
		}
	}
}

// realtimePriming is how many samples of silence (16 kHz) the realtime
// client sends ahead of its input: its 16 to 24 kHz resampling and a
// server's 24 to 16 kHz one each wait for three samples past the last
// they complete, and with these four the 24 kHz audio of frame k's append
// already holds everything a server needs to complete its 16 kHz frame k.
// Without them the server completes frame k only when frame k+1 arrives,
// a frame (20 ms) after it was said; with them the input reaches it
// 0.25 ms late, as from a microphone sampled at 24 kHz.
const realtimePriming = 4

// realtimeInput is a realtime client's resampling of its 16 kHz input to
// the protocol's 24 kHz, primed with realtimePriming samples of silence.
type realtimeInput struct {
	r      *audio.Resampler
	primed bool
}

func newRealtimeInput() *realtimeInput {
	return &realtimeInput{r: audio.NewResampler(SampleRate, realtimeRate)}
}

// push resamples the next frame of input: the 24 kHz samples to append.
func (in *realtimeInput) push(frame []float32) []float32 {
	if !in.primed {
		in.primed = true
		frame = append(make([]float32, realtimePriming, realtimePriming+len(frame)), frame...)
	}
	return in.r.Push(frame)
}

// realtimeClient is the realtime protocol's part of a client session. in
// is used by Send alone; the rest by the session's reader alone.
type realtimeClient struct {
	in       *realtimeInput              // 16 kHz input to 24 kHz
	out      map[string]*audio.Resampler // per output item, 24 kHz to 16 kHz
	cut      map[string]bool             // items cut by a barge-in before they were done: later audio is dropped
	response string                      // the response in progress, "" when none
	// serverCancels: the endpoint's turn detection cancels the response
	// in progress itself on speech_started (server_vad and semantic_vad
	// unless interrupt_response is false), so a barge-in sends no
	// response.cancel, which would find none and be answered with an
	// error.
	serverCancels bool
}

func (*realtimeClient) continuous() bool { return false }

func (c *realtimeClient) encode(frame []float32) ([]message, error) {
	x := c.in.push(frame)
	return []message{encodeRealtime(rtEvent{Type: "input_audio_buffer.append", Audio: encodeAudio(x)})}, nil
}

func (c *realtimeClient) receive(s *session, typ websocket.MessageType, data []byte) error {
	e, err := parseRealtime(typ, data)
	if err != nil {
		return err
	}
	switch e.Type {
	case "input_audio_buffer.speech_started":
		if err := s.event(Event{Kind: SpeechStarted, Name: e.Type, AgentMs: msOrNone(e.AudioStartMs)}); err != nil {
			return err
		}
		return c.bargeIn(s)
	case "input_audio_buffer.speech_stopped":
		return s.event(Event{Kind: SpeechStopped, Name: e.Type, AgentMs: msOrNone(e.AudioEndMs)})
	case "input_audio_buffer.cleared":
		return s.event(Event{Kind: InputCleared, Name: e.Type, AgentMs: -1})
	case "response.created":
		if e.Response != nil {
			c.response = e.Response.ID
		}
		return s.event(Event{Kind: ResponseStarted, Name: e.Type, AgentMs: -1})
	case "response.audio.delta", "response.output_audio.delta":
		return c.delta(s, e)
	case "response.audio.done", "response.output_audio.done":
		r, cut := c.out[e.ItemID], c.cut[e.ItemID]
		delete(c.out, e.ItemID)
		delete(c.cut, e.ItemID)
		if r != nil && !cut {
			return s.spk.enqueue(e.ItemID, r.Flush())
		}
	case "response.done":
		status := ""
		if e.Response != nil {
			status = s.ep.scrub(e.Response.Status)
		}
		c.response = ""
		return s.event(Event{Kind: ResponseDone, Name: e.Type, AgentMs: -1, Status: status})
	case "response.audio_transcript.delta", "response.output_audio_transcript.delta":
		return s.event(Event{Kind: Transcript, Name: e.Type, AgentMs: -1, Text: s.ep.scrub(e.Delta)})
	case "response.audio_transcript.done", "response.output_audio_transcript.done":
		return s.event(Event{Kind: Transcript, Name: e.Type, AgentMs: -1, Text: s.ep.scrub(e.Transcript)})
	case "conversation.item.input_audio_transcription.delta":
		return s.event(Event{Kind: InputTranscript, Name: e.Type, AgentMs: -1, Text: s.ep.scrub(e.Delta)})
	case "conversation.item.input_audio_transcription.completed":
		return s.event(Event{Kind: InputTranscript, Name: e.Type, AgentMs: -1, Text: s.ep.scrub(e.Transcript)})
	case "error":
		ev := Event{Kind: ProviderError, Name: e.Type, AgentMs: -1}
		if e.Error != nil {
			ev.Code, ev.Message = s.ep.scrub(e.Error.Code), s.ep.scrub(e.Error.Message)
		}
		return s.event(ev)
	}
	return nil
}

// delta queues one piece of a response's audio for playback.
func (c *realtimeClient) delta(s *session, e rtEvent) error {
	x, err := decodeAudio(e.Type+" delta", e.Delta)
	if err != nil || c.cut[e.ItemID] {
		return err
	}
	r := c.out[e.ItemID]
	if r == nil {
		if err := s.ep.Limits.CheckAgentItems(len(c.out) + len(c.cut) + 1); err != nil {
			return fmt.Errorf("%w: %w", ErrProtocol, err)
		}
		r = audio.NewResampler(realtimeRate, SampleRate)
		c.out[e.ItemID] = r
	}
	return s.spk.enqueue(e.ItemID, r.Push(x))
}

// bargeIn does what a realtime client does when the user starts talking
// while the agent's audio plays: stop playback at once, cancel the
// response if it is still running and the endpoint does not cancel it
// itself, and truncate the item to what was heard, so the agent knows
// what the listener heard.
func (c *realtimeClient) bargeIn(s *session) error {
	item, heard, cut := s.spk.bargeIn()
	if !cut {
		return nil
	}
	if _, open := c.out[item]; open {
		// Its audio is still coming: drop it until the item is done. An
		// item already done sends no more, and is not kept.
		c.cut[item] = true
		delete(c.out, item)
	}
	played := heard * 1000 / SampleRate
	if err := s.event(Event{Kind: BargeIn, AgentMs: -1, PlayedMs: played}); err != nil {
		return err
	}
	ctx, cancel := s.clock.WithTimeout(s.ctx, s.ep.HandshakeTimeout)
	defer cancel()
	if c.response != "" && !c.serverCancels {
		if err := s.write(ctx, encodeRealtime(rtEvent{Type: "response.cancel", ResponseID: c.response})); err != nil {
			return err
		}
	}
	return s.write(ctx, encodeRealtime(rtEvent{Type: "conversation.item.truncate", ItemID: item,
		ContentIndex: ptr(0), AudioEndMs: ptr(played)}))
}

// msOrNone is a time stamp, -1 when absent.
func msOrNone(ms *int64) int64 {
	if ms == nil {
		return -1
	}
	return *ms
}
