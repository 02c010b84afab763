package proto

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/floorbench/floorbench/internal/audio"
)

// serveGeminiLive is the server side of the Live API's BidiGenerateContent
// protocol, the subset docs/agents.md#gemini-live lists: setup first,
// answered with setupComplete; then realtimeInput audio at 16 kHz in any
// piece sizes, cut into 20 ms frames for the agent. The agent's talk goes
// out as serverContent model turns of 24 kHz audio sent
// ServerOptions.RealtimeLead ahead, generationComplete once all of it is
// sent and turnComplete once it has been said; its yield as interrupted,
// then turnComplete. As the Live API does, the server reports what it
// cannot take by closing the connection with a reason (1007 for a
// malformed message, 1008 for one it does not take).
func serveGeminiLive(c *serverConn) error {
	c.conn.SetReadLimit(geminiReadLimit)
	s := &geminiServer{c: c, lead: int(c.opt.RealtimeLead / FrameDuration)}
	if err := s.accept(); err != nil {
		return err
	}
	return c.serve(func(_ websocket.MessageType, data []byte) error {
		var m glClientMessage
		if err := parseGemini(data, &m); err != nil {
			return s.refuse(websocket.StatusInvalidFramePayloadData, err.Error())
		}
		return s.handle(m)
	})
}

// geminiServer is the state of one Live API connection.
type geminiServer struct {
	c       *serverConn
	pending []float32 // 16 kHz input not yet a whole frame
	talk    talk
	own     []float32 // the frame being said during the next input frame
	lead    int       // frames of audio sent ahead of what is said
	// transcribe: the setup asked for a transcript of the model's audio,
	// sent whole with the turn's first piece; caption is that transcript
	// until it is sent.
	transcribe bool
	caption    string
	// The model turn in progress: the resampler of its audio to 24 kHz,
	// how many of its frames were sent, whether generationComplete went
	// out; open until its turnComplete.
	out       *audio.Resampler
	sentFrame int
	generated bool
	open      bool
}

// accept reads the setup, checks it, starts the agent and answers with
// setupComplete.
func (s *geminiServer) accept() error {
	_, data, err := s.c.read(s.c.opt.HandshakeTimeout)
	if err != nil {
		return endOfSession(err)
	}
	var m glClientMessage
	if err := parseGemini(data, &m); err != nil {
		return s.refuse(websocket.StatusInvalidFramePayloadData, err.Error())
	}
	if m.Setup == nil {
		return s.refuse(websocket.StatusPolicyViolation, "the first message must be setup")
	}
	if err := checkGeminiSetup(*m.Setup); err != nil {
		return s.refuse(websocket.StatusPolicyViolation, err.Error())
	}
	if err := s.c.start(); err != nil {
		return s.refuse(websocket.StatusInternalError, err.Error())
	}
	s.transcribe = m.Setup.OutputAudioTranscription != nil
	return s.send(glServerMessage{SetupComplete: &struct{}{}})
}

// checkGeminiSetup refuses what the reference agent cannot do: answer in
// anything but audio, or leave its turns to the client (activity
// detection disabled, or activity that does not interrupt it).
func checkGeminiSetup(setup glSetup) error {
	if g := setup.GenerationConfig; g != nil && len(g.ResponseModalities) > 0 {
		for _, m := range g.ResponseModalities {
			if !strings.EqualFold(m, "AUDIO") {
				return fmt.Errorf("responseModalities %q: the reference agent answers in AUDIO only", fromClient(m))
			}
		}
	}
	if r := setup.RealtimeInputConfig; r != nil {
		if r.AutomaticActivityDetection != nil && r.AutomaticActivityDetection.Disabled {
			return fmt.Errorf("automaticActivityDetection disabled: the reference agent takes its own turns")
		}
		switch r.ActivityHandling {
		case "", "ACTIVITY_HANDLING_UNSPECIFIED", "START_OF_ACTIVITY_INTERRUPTS":
		default:
			return fmt.Errorf("activityHandling %q: the reference agent decides itself when it yields", fromClient(r.ActivityHandling))
		}
	}
	return nil
}

// handle answers one client message.
func (s *geminiServer) handle(m glClientMessage) error {
	switch {
	case m.RealtimeInput != nil:
		return s.input(*m.RealtimeInput)
	case m.Setup != nil:
		return s.refuse(websocket.StatusPolicyViolation, "setup is the first message only")
	case m.ClientContent != nil, m.ToolResponse != nil:
		return s.refuse(websocket.StatusPolicyViolation, "the reference agent takes realtimeInput audio only")
	}
	return s.refuse(websocket.StatusInvalidFramePayloadData, "a message with none of setup, clientContent, realtimeInput, toolResponse")
}

// input takes realtime input: audio in any piece size, given to the agent
// in whole 20 ms frames; the end of the audio stream is noted and
// nothing else.
func (s *geminiServer) input(in glRealtimeInput) error {
	if in.ActivityStart != nil || in.ActivityEnd != nil {
		return s.refuse(websocket.StatusPolicyViolation, "activityStart and activityEnd need automatic activity detection disabled")
	}
	blobs := in.MediaChunks
	if in.Audio != nil {
		blobs = append([]glBlob{*in.Audio}, blobs...)
	}
	for _, b := range blobs {
		if rate, err := pcmRate(b.MimeType, 0); err != nil || rate != SampleRate {
			return s.refuse(websocket.StatusInvalidFramePayloadData,
				fmt.Sprintf("audio %q: the reference agent takes audio/pcm;rate=16000", fromClient(b.MimeType)))
		}
		x, err := decodeAudio("realtimeInput audio", b.Data)
		if err != nil {
			return s.refuse(websocket.StatusInvalidFramePayloadData, err.Error())
		}
		if err := stepFrames(&s.pending, x, s.step); err != nil {
			return err
		}
	}
	return nil
}

// step gives the agent one input frame and does what it decides.
func (s *geminiServer) step(in []float32) error {
	d, err := s.c.agent.Hear(in, s.own)
	if err != nil {
		return s.refuse(websocket.StatusInternalError, err.Error())
	}
	s.c.frames++
	switch {
	case d.Stop && s.talk.utt != nil:
		s.talk.utt = nil
		if err := s.send(glServerMessage{ServerContent: &glServerContent{Interrupted: true}}); err != nil {
			return err
		}
		if err := s.complete(); err != nil {
			return err
		}
	case d.Say != nil && !d.Stop && s.talk.utt == nil:
		s.talk = talk{utt: d.Say, text: d.Text}
		s.out, s.sentFrame, s.generated, s.open = audio.NewResampler(SampleRate, geminiOutRate), 0, false, true
		if s.transcribe {
			s.caption = d.Text
		}
	}
	talking := s.talk.utt != nil
	s.own = s.talk.next()
	if err := s.topUp(); err != nil {
		return err
	}
	if talking && s.own == nil {
		return s.complete()
	}
	return nil
}

// topUp sends the turn's audio up to the lead ahead of what has been
// said, in pieces of at most deltaFrames frames, then, once all of it is
// sent, generationComplete.
func (s *geminiServer) topUp() error {
	if !s.open || s.generated {
		return nil
	}
	total := s.talk.frames()
	for s.sentFrame < min(total, s.talk.said+s.lead) {
		var x []float32
		for n := 0; n < deltaFrames && s.sentFrame < min(total, s.talk.said+s.lead); n++ {
			x = append(x, s.out.Push(s.talk.utt[s.sentFrame*FrameSamples:min((s.sentFrame+1)*FrameSamples, len(s.talk.utt))])...)
			s.sentFrame++
		}
		if s.sentFrame == total {
			x = append(x, s.out.Flush()...)
		}
		part := glPart{InlineData: &glBlob{MimeType: fmt.Sprintf("%s;rate=%d", geminiPCM, geminiOutRate), Data: encodeAudio(x)}}
		sc := &glServerContent{ModelTurn: &glContent{Role: "model", Parts: []glPart{part}}}
		if s.caption != "" {
			sc.OutputTranscription = &glTranscription{Text: s.caption}
			s.caption = ""
		}
		if err := s.send(glServerMessage{ServerContent: sc}); err != nil {
			return err
		}
	}
	if s.sentFrame < total {
		return nil
	}
	s.generated = true
	return s.send(glServerMessage{ServerContent: &glServerContent{GenerationComplete: true}})
}

// complete ends the open turn with turnComplete.
func (s *geminiServer) complete() error {
	if !s.open {
		return nil
	}
	s.open = false
	return s.send(glServerMessage{ServerContent: &glServerContent{TurnComplete: true}})
}

// send sends one server message.
func (s *geminiServer) send(m glServerMessage) error {
	if err := s.c.write(encodeGemini(m)); err != nil {
		return endOfSession(err)
	}
	return nil
}

// refuse closes the connection with code and the reason, as the Live API
// reports an error, and returns it for the server's log.
func (s *geminiServer) refuse(code websocket.StatusCode, reason string) error {
	s.c.closeWith(code, closeReason(reason))
	return fmt.Errorf("%s", reason)
}

// closeReason is text cut to the 123 bytes a WebSocket close reason holds,
// at a rune boundary.
func closeReason(text string) string {
	const most = 123
	if len(text) <= most {
		return text
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut]
}
