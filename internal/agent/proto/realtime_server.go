package proto

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/floorbench/floorbench/internal/audio"
)

// DefaultRealtimeLead is how far ahead of playback the realtime server
// sends an utterance's audio unless told otherwise. Real realtime servers
// send faster than real time, so a client must stop its own playback on a
// barge-in, not just stop receiving.
const DefaultRealtimeLead = 500 * time.Millisecond

// serveRealtime is the server side of the realtime protocol, the subset
// docs/agents.md#realtime lists, with events shaped as the OpenAI Realtime
// API reference shapes them: session.created first, in the GA shape unless
// the client asked for the beta API (the OpenAI-Beta: realtime=v1 header),
// then input audio in any piece sizes, cut into 20 ms frames for the
// agent; its decisions go out as speech_started/stopped and responses
// (response.created, the output item and its audio content part
// announced, audio deltas sent ServerOptions.RealtimeLead ahead, each
// ...done in order, response.done with its status). A malformed event
// gets an error event, then the connection is closed; a well-formed
// request it cannot do gets an error event and the session goes on.
func serveRealtime(c *serverConn) error {
	c.conn.SetReadLimit(realtimeReadLimit)
	s := &realtimeServer{c: c, in: audio.NewResampler(realtimeRate, SampleRate), lead: int(c.opt.RealtimeLead / FrameDuration),
		ga: !betaRequested(c.request), voice: realtimeDefaultVoice, model: c.request.URL.Query().Get("model")}
	if err := s.send(rtEvent{Type: "session.created", Session: s.session()}); err != nil {
		return endOfSession(err)
	}
	if err := c.start(); err != nil {
		return s.refuse("server_error", err.Error())
	}
	timeout := c.opt.HandshakeTimeout
	for {
		typ, data, err := c.read(timeout)
		if err != nil {
			return endOfSession(err)
		}
		timeout = c.opt.IdleTimeout
		e, err := parseRealtime(typ, data)
		if err != nil {
			return s.refuse("invalid_event", err.Error())
		}
		if err := s.handle(e); err != nil {
			return err
		}
	}
}

// realtimeDefaultVoice is the voice a session has until the client sets
// one (the API's default).
const realtimeDefaultVoice = "alloy"

// betaRequested reports whether the client's handshake asks for the beta
// API, as OpenAI's endpoint reads it: OpenAI-Beta: realtime=v1.
func betaRequested(r *http.Request) bool {
	for _, v := range r.Header.Values("OpenAI-Beta") {
		for _, part := range strings.Split(v, ",") {
			if strings.TrimSpace(part) == "realtime=v1" {
				return true
			}
		}
	}
	return false
}

// realtimeServer is the state of one realtime connection.
type realtimeServer struct {
	c       *serverConn
	ga      bool             // answer in the GA shape (else beta)
	in      *audio.Resampler // the client's 24 kHz audio to 16 kHz
	pending []float32        // 16 kHz input not yet a whole frame
	talk    talk
	own     []float32 // the frame being said during the next input frame
	events  int       // server events sent
	// The session as configured: what session.updated echoes.
	model, voice, instructions string
	vad                        RealtimeVAD // the turn detection's parameters the client set
	// The response in progress: its number, the resampler of its audio
	// to 24 kHz, how many frames of it and how many 24 kHz samples were
	// sent, whether response.done went out.
	resp      int
	out       *audio.Resampler
	sentFrame int
	sent24    int
	done      bool
	speech    int // input speech items announced
	lead      int // frames of audio sent ahead of what is said
	// listenOnly: the client asked for no responses (turn_detection's
	// create_response false); the agent's speech detector still reports.
	listenOnly bool
}

// handle answers one client event.
func (s *realtimeServer) handle(e rtEvent) error {
	switch e.Type {
	case "session.update":
		return s.update(e)
	case "input_audio_buffer.append":
		x, err := decodeAudio("input_audio_buffer.append audio", e.Audio)
		if err != nil {
			return s.refuse("invalid_audio", err.Error())
		}
		return stepFrames(&s.pending, s.in.Push(x), s.step)
	case "response.cancel":
		if !s.active() || (e.ResponseID != "" && e.ResponseID != s.responseID()) {
			// As OpenAI answers a cancel that finds nothing to cancel,
			// whether no response runs or another one does.
			return s.sendError("response_cancel_not_active", "Cancellation failed: no active response found")
		}
		return s.cancel("client_cancelled")
	case "conversation.item.truncate":
		return s.truncate(e)
	case "input_audio_buffer.commit":
		return nil // server_vad cuts turns itself
	case "input_audio_buffer.clear":
		// The agent holds no input beyond the frame it completes; the
		// answer follows every event about the audio before the clear.
		return s.send(rtEvent{Type: "input_audio_buffer.cleared"})
	}
	return s.sendError("unsupported_event", fmt.Sprintf("the reference agent does not take %q events", fromClient(e.Type)))
}

// update applies session.update: the formats must be PCM16 at 24 kHz and
// turn detection the server's; the voice, the instructions and the turn
// detection's parameters given are kept and echoed to the client as it
// sent them.
func (s *realtimeServer) update(e rtEvent) error {
	if e.Session == nil {
		return s.refuse("invalid_event", "session.update has no session")
	}
	if err := e.Session.formats(fromClient); err != nil {
		return s.refuse("unsupported_audio_format", err.Error())
	}
	td, err := e.Session.turnDetection()
	if err != nil {
		return s.refuse("invalid_event", err.Error())
	}
	if td.Type != "" && td.Type != realtimeVAD {
		return s.refuse("unsupported_turn_detection", fmt.Sprintf("turn_detection %q: the reference agent takes its own turns (server_vad)", fromClient(td.Type)))
	}
	if !td.interrupts() {
		return s.refuse("unsupported_turn_detection", "turn_detection interrupt_response false: the reference agent stops its response itself when it yields")
	}
	if td.Type != "" {
		s.vad = td.RealtimeVAD
	}
	s.listenOnly = s.vad.CreateResponse != nil && !*s.vad.CreateResponse
	if e.Session.Type != "" || e.Session.Audio != nil {
		s.ga = e.Session.ga()
	} else if e.Session.InputAudioFormat != "" || e.Session.OutputAudioFormat != "" || e.Session.Modalities != nil {
		s.ga = false
	}
	if v := e.Session.voice(); v != "" {
		s.voice = v
	}
	if e.Session.Instructions != "" {
		s.instructions = e.Session.Instructions
	}
	return s.send(rtEvent{Type: "session.updated", Session: s.session()})
}

// session is the effective session configuration, in the connection's
// shape.
func (s *realtimeServer) session() *rtSession {
	vad, _ := json.Marshal(rtTurnDetection{Type: realtimeVAD, RealtimeVAD: s.vad, InterruptResponse: ptr(true)})
	if s.ga {
		pcm := &rtFormat{Type: realtimeGAType, Rate: realtimeRate}
		return &rtSession{Type: realtimeSession, Object: "realtime.session", ID: "sess_1", Model: s.model,
			OutputModalities: []string{"audio"}, Instructions: s.instructions,
			Audio: &rtAudio{Input: &rtAudioSide{Format: pcm, TurnDetection: vad}, Output: &rtAudioSide{Format: pcm, Voice: s.voice}}}
	}
	return &rtSession{Object: "realtime.session", ID: "sess_1", Model: s.model, Modalities: []string{"audio", "text"},
		Instructions: s.instructions, Voice: s.voice, InputAudioFormat: realtimeBeta, OutputAudioFormat: realtimeBeta, TurnDetection: vad}
}

// step gives the agent one input frame and does what it decides.
func (s *realtimeServer) step(in []float32) error {
	d, err := s.c.agent.Hear(in, s.own)
	if err != nil {
		return s.refuse("server_error", err.Error())
	}
	s.c.frames++
	if d.SpeechStarted || (d.Stop && s.talk.utt != nil) {
		s.speech++
		if err := s.send(rtEvent{Type: "input_audio_buffer.speech_started", AudioStartMs: ptr(s.c.nowMs()), ItemID: s.inputItem()}); err != nil {
			return err
		}
	}
	switch {
	case d.Stop && s.talk.utt != nil:
		if err := s.cancel("turn_detected"); err != nil {
			return err
		}
	case d.Say != nil && !d.Stop && s.talk.utt == nil && !s.listenOnly:
		if err := s.begin(d.Say, d.Text); err != nil {
			return err
		}
	}
	s.own = s.talk.next()
	if err := s.topUp(); err != nil {
		return err
	}
	if d.SpeechStopped {
		return s.send(rtEvent{Type: "input_audio_buffer.speech_stopped", AudioEndMs: ptr(s.c.nowMs()), ItemID: s.inputItem()})
	}
	return nil
}

// begin starts a response that says utt and announces its output item
// and the item's audio content part, as the reference orders them:
// response.created, response.output_item.added, the conversation's item
// (conversation.item.added in the GA API, .created in the beta), then
// response.content_part.added, before any audio; then the transcript
// of what it will say, whole, as one delta.
func (s *realtimeServer) begin(utt []float32, text string) error {
	s.talk = talk{utt: utt, text: text}
	s.resp++
	s.out = audio.NewResampler(SampleRate, realtimeRate)
	s.sentFrame, s.sent24, s.done = 0, 0, false
	item := s.item("in_progress")
	itemEvent := "conversation.item.created"
	if s.ga {
		itemEvent = "conversation.item.added"
	}
	for _, e := range []rtEvent{
		{Type: "response.created", Response: &rtResponse{ID: s.responseID(), Object: "realtime.response", Status: "in_progress", Output: []rtItem{}}},
		{Type: "response.output_item.added", ResponseID: s.responseID(), OutputIndex: ptr(0), Item: item},
		{Type: itemEvent, Item: item},
		{Type: "response.content_part.added", ResponseID: s.responseID(), ItemID: item.ID, OutputIndex: ptr(0), ContentIndex: ptr(0),
			Part: &rtPart{Type: "audio"}},
	} {
		if err := s.send(e); err != nil {
			return err
		}
	}
	if text == "" {
		return nil
	}
	d := s.audioEvent("transcript.delta", "")
	d.Delta = text
	return s.send(d)
}

// item is the response's output item, an assistant message with status;
// once the response is over it holds its audio content part.
func (s *realtimeServer) item(status string) *rtItem {
	it := &rtItem{ID: s.outputItem(s.resp), Object: "realtime.item", Type: "message", Status: status, Role: "assistant", Content: []rtPart{}}
	if status != "in_progress" {
		kind := "audio"
		if s.ga {
			kind = "output_audio"
		}
		it.Content = []rtPart{{Type: kind, Transcript: s.talk.text}}
	}
	return it
}

// deltaFrames is the most audio one delta carries: 100 ms.
const deltaFrames = 5

// topUp sends the response's audio up to the lead ahead of what has
// been said, in deltas of at most deltaFrames frames, then, once all of
// it is sent, response.done.
func (s *realtimeServer) topUp() error {
	if !s.active() {
		return nil
	}
	total := s.talk.frames()
	for s.sentFrame < min(total, s.talk.said+s.lead) {
		var x []float32
		for n := 0; n < deltaFrames && s.sentFrame < min(total, s.talk.said+s.lead); n++ {
			u := s.talk.utt[s.sentFrame*FrameSamples : min((s.sentFrame+1)*FrameSamples, len(s.talk.utt))]
			x = append(x, s.out.Push(u)...)
			s.sentFrame++
		}
		if s.sentFrame == total {
			x = append(x, s.out.Flush()...)
		}
		s.sent24 += len(x)
		if err := s.send(s.audioEvent("delta", encodeAudio(x))); err != nil {
			return err
		}
	}
	if s.sentFrame < total {
		return nil
	}
	return s.finish("completed", "")
}

// active reports whether a response is in progress.
func (s *realtimeServer) active() bool { return s.resp > 0 && !s.done }

// cancel ends the response in progress, if any: the agent stopped
// talking (turn_detected) or the client asked (client_cancelled).
func (s *realtimeServer) cancel(reason string) error {
	s.talk.utt = nil
	if !s.active() {
		return nil
	}
	return s.finish("cancelled", reason)
}

// finish ends the response: its audio, content part, output item (and in
// the GA API the conversation's item) done in that order, then
// response.done with the status; a cancelled response's item is
// incomplete.
func (s *realtimeServer) finish(status, reason string) error {
	s.done = true
	itemStatus := "completed"
	if status != "completed" {
		itemStatus = "incomplete"
	}
	item := s.item(itemStatus)
	events := []rtEvent{s.audioEvent("done", "")}
	if s.talk.text != "" {
		done := s.audioEvent("transcript.done", "")
		done.Transcript = s.talk.text
		events = append(events, done)
	}
	events = append(events, []rtEvent{
		{Type: "response.content_part.done", ResponseID: s.responseID(), ItemID: item.ID, OutputIndex: ptr(0), ContentIndex: ptr(0),
			Part: &rtPart{Type: "audio", Transcript: s.talk.text}},
		{Type: "response.output_item.done", ResponseID: s.responseID(), OutputIndex: ptr(0), Item: item},
	}...)
	if s.ga {
		events = append(events, rtEvent{Type: "conversation.item.done", Item: item})
	}
	r := &rtResponse{ID: s.responseID(), Object: "realtime.response", Status: status, Output: []rtItem{*item}}
	if reason != "" {
		r.StatusDetails = &rtStatusDetails{Type: status, Reason: reason}
	}
	for _, e := range append(events, rtEvent{Type: "response.done", Response: r}) {
		if err := s.send(e); err != nil {
			return err
		}
	}
	return nil
}

// audioEvent is a delta or done event of the response's audio (kind
// delta, done) or of its transcript (transcript.delta, transcript.done),
// named as the client's API shape names it: response.output_audio.delta,
// response.output_audio_transcript.done; beta response.audio.delta,
// response.audio_transcript.done.
func (s *realtimeServer) audioEvent(kind, delta string) rtEvent {
	if k, ok := strings.CutPrefix(kind, "transcript."); ok {
		kind = "_transcript." + k
	} else {
		kind = "." + kind
	}
	name := "response.audio" + kind
	if s.ga {
		name = "response.output_audio" + kind
	}
	return rtEvent{Type: name, ResponseID: s.responseID(), ItemID: s.outputItem(s.resp), OutputIndex: ptr(0), ContentIndex: ptr(0), Delta: delta}
}

// truncate answers conversation.item.truncate for an item of this session
// whose audio reaches audio_end_ms.
func (s *realtimeServer) truncate(e rtEvent) error {
	num, ok := strings.CutPrefix(e.ItemID, "item_")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 1 || n > s.resp {
		return s.sendError("item_not_found", fmt.Sprintf("no output item %q in this session", fromClient(e.ItemID)))
	}
	sentMs := int64(s.sent24) * 1000 / realtimeRate
	if e.AudioEndMs == nil || *e.AudioEndMs < 0 || (n == s.resp && *e.AudioEndMs > sentMs) {
		return s.sendError("invalid_audio_end_ms", fmt.Sprintf("audio_end_ms must be between 0 and the %d ms of audio sent", sentMs))
	}
	return s.send(rtEvent{Type: "conversation.item.truncated", ItemID: e.ItemID, ContentIndex: ptr(0), AudioEndMs: e.AudioEndMs})
}

func (s *realtimeServer) responseID() string { return "resp_" + strconv.Itoa(s.resp) }

func (s *realtimeServer) outputItem(n int) string { return "item_" + strconv.Itoa(n) }

func (s *realtimeServer) inputItem() string { return "item_in_" + strconv.Itoa(s.speech) }

// send sends one server event with the next event id.
func (s *realtimeServer) send(e rtEvent) error {
	s.events++
	e.EventID = "event_" + strconv.Itoa(s.events)
	if err := s.c.write(encodeRealtime(e)); err != nil {
		return endOfSession(err)
	}
	return nil
}

// sendError reports a request the server cannot do; the session goes on.
func (s *realtimeServer) sendError(code, msg string) error {
	return s.send(rtEvent{Type: "error", Error: &rtError{Type: "invalid_request_error", Code: code, Message: msg}})
}

// refuse reports a malformed event or an impossible session, closes the
// connection and returns the error for the server's log.
func (s *realtimeServer) refuse(code, msg string) error {
	s.sendError(code, msg)
	s.c.closeWith(websocket.StatusPolicyViolation, code)
	return fmt.Errorf("%s: %s", code, msg)
}
