package proto

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"strconv"
	"strings"

	"github.com/coder/websocket"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/redact"
)

// GeminiLiveName is the Gemini Live API's BidiGenerateContent protocol
// (docs/agents.md#gemini-live): JSON messages both ways, the client's
// audio as base64 PCM16 at 16 kHz, the model's at 24 kHz.
const GeminiLiveName = "gemini-live"

// The formats of the Live API's audio: the input's native rate is 16 kHz,
// the output is always 24 kHz (ai.google.dev/api/live).
const (
	geminiInputMime = "audio/pcm;rate=16000"
	geminiPCM       = "audio/pcm"
	geminiOutRate   = 24000
	// geminiKeyHeader carries the API key unless the endpoint names a
	// header or a query parameter for it.
	geminiKeyHeader = "x-goog-api-key"
	// geminiReadLimit bounds one message: a model turn's piece of audio.
	geminiReadLimit = 8 << 20
)

func init() {
	protocols[GeminiLiveName] = dialGeminiLive
	servers[GeminiLiveName] = serveGeminiLive
}

// glClientMessage is a message from client to server: exactly one of its
// fields is set (BidiGenerateContentClientMessage).
type glClientMessage struct {
	Setup         *glSetup         `json:"setup,omitempty"`
	ClientContent json.RawMessage  `json:"clientContent,omitempty"`
	RealtimeInput *glRealtimeInput `json:"realtimeInput,omitempty"`
	ToolResponse  json.RawMessage  `json:"toolResponse,omitempty"`
}

// glSetup is the session configuration, the client's first and only setup
// message (BidiGenerateContentSetup).
type glSetup struct {
	Model               string                 `json:"model,omitempty"`
	GenerationConfig    *glGenerationConfig    `json:"generationConfig,omitempty"`
	SystemInstruction   *glContent             `json:"systemInstruction,omitempty"`
	RealtimeInputConfig *glRealtimeInputConfig `json:"realtimeInputConfig,omitempty"`
	// OutputAudioTranscription and InputAudioTranscription ask for
	// transcripts of the model's audio and of the client's
	// (AudioTranscriptionConfig, an empty object).
	OutputAudioTranscription *struct{} `json:"outputAudioTranscription,omitempty"`
	InputAudioTranscription  *struct{} `json:"inputAudioTranscription,omitempty"`
}

type glGenerationConfig struct {
	ResponseModalities []string        `json:"responseModalities,omitempty"`
	SpeechConfig       *glSpeechConfig `json:"speechConfig,omitempty"`
}

type glSpeechConfig struct {
	VoiceConfig struct {
		PrebuiltVoiceConfig struct {
			VoiceName string `json:"voiceName"`
		} `json:"prebuiltVoiceConfig"`
	} `json:"voiceConfig"`
}

type glRealtimeInputConfig struct {
	AutomaticActivityDetection *glActivityDetection `json:"automaticActivityDetection,omitempty"`
	ActivityHandling           string               `json:"activityHandling,omitempty"`
}

type glActivityDetection struct {
	Disabled bool `json:"disabled,omitempty"`
}

// glRealtimeInput is input sent in real time (BidiGenerateContentRealtimeInput):
// audio, or the end of the audio stream. mediaChunks is the field's
// deprecated form, still read by the server.
type glRealtimeInput struct {
	Audio          *glBlob         `json:"audio,omitempty"`
	MediaChunks    []glBlob        `json:"mediaChunks,omitempty"`
	AudioStreamEnd bool            `json:"audioStreamEnd,omitempty"`
	ActivityStart  json.RawMessage `json:"activityStart,omitempty"`
	ActivityEnd    json.RawMessage `json:"activityEnd,omitempty"`
}

// glBlob is inline data: a MIME type and base64 bytes.
type glBlob struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
}

// glServerMessage is a message from server to client
// (BidiGenerateContentServerMessage); fields the client does not use are
// ignored.
type glServerMessage struct {
	SetupComplete *struct{}        `json:"setupComplete,omitempty"`
	ServerContent *glServerContent `json:"serverContent,omitempty"`
	GoAway        *glGoAway        `json:"goAway,omitempty"`
}

// glServerContent is the model's incremental output
// (BidiGenerateContentServerContent).
type glServerContent struct {
	ModelTurn          *glContent `json:"modelTurn,omitempty"`
	GenerationComplete bool       `json:"generationComplete,omitempty"`
	TurnComplete       bool       `json:"turnComplete,omitempty"`
	Interrupted        bool       `json:"interrupted,omitempty"`
	// OutputTranscription and InputTranscription are transcripts of the
	// model's audio and the client's, in pieces, when setup asked.
	OutputTranscription *glTranscription `json:"outputTranscription,omitempty"`
	InputTranscription  *glTranscription `json:"inputTranscription,omitempty"`
}

// glTranscription is a piece of a transcript (Transcription).
type glTranscription struct {
	Text string `json:"text"`
}

type glGoAway struct {
	TimeLeft string `json:"timeLeft,omitempty"`
}

type glContent struct {
	Role  string   `json:"role,omitempty"`
	Parts []glPart `json:"parts"`
}

type glPart struct {
	Text       string  `json:"text,omitempty"`
	InlineData *glBlob `json:"inlineData,omitempty"`
}

// encodeGemini is a message as JSON text.
func encodeGemini(m any) message {
	data, _ := json.Marshal(m) // structs of strings, bools and raw JSON that was valid
	return message{websocket.MessageText, data}
}

// parseGemini reads one message: a JSON object, in a text or a binary
// frame (the Live API's server sends its JSON in binary frames).
func parseGemini(data []byte, into any) error {
	if err := json.Unmarshal(data, into); err != nil {
		return fmt.Errorf("%w: a message is not a JSON object of the Live API (%d bytes; %v)", ErrProtocol, len(data), redact.JSON(err))
	}
	return nil
}

// pcmRate reads the rate of an audio/pcm MIME type; absent is def.
func pcmRate(mimeType string, def int) (int, error) {
	mt, params, err := mime.ParseMediaType(mimeType)
	if err != nil || mt != geminiPCM {
		return 0, fmt.Errorf("not audio/pcm")
	}
	r, ok := params["rate"]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(r)
	if err != nil {
		return 0, fmt.Errorf("rate is not a number")
	}
	return n, nil
}

// geminiSetup is the setup the client sends: audio responses with a
// transcript of the model's audio, and the endpoint's model, voice and
// instructions when it names them. Turn detection is left to the server
// (automatic activity detection, whose start of activity interrupts the
// model).
func geminiSetup(o RealtimeOptions) glSetup {
	s := glSetup{GenerationConfig: &glGenerationConfig{ResponseModalities: []string{"AUDIO"}}, OutputAudioTranscription: &struct{}{}}
	if o.Model != "" {
		s.Model = o.Model
		if !strings.HasPrefix(s.Model, "models/") {
			s.Model = "models/" + s.Model
		}
	}
	if o.Voice != "" {
		s.GenerationConfig.SpeechConfig = &glSpeechConfig{}
		s.GenerationConfig.SpeechConfig.VoiceConfig.PrebuiltVoiceConfig.VoiceName = o.Voice
	}
	if o.Instructions != "" {
		s.SystemInstruction = &glContent{Parts: []glPart{{Text: o.Instructions}}}
	}
	return s
}

// dialGeminiLive opens a Live API session: connect with the key in its
// header (x-goog-api-key unless the endpoint names another, or a query
// parameter), send setup, wait for setupComplete, start.
func dialGeminiLive(ctx context.Context, ep Endpoint, clock *Clock) (Session, error) {
	if ep.AuthHeader == "" && ep.AuthQuery == "" {
		ep.AuthHeader = geminiKeyHeader
	}
	conn, err := connect(ctx, ep, clock, nil)
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(geminiReadLimit)
	if err := geminiHandshake(ctx, ep, clock, conn); err != nil {
		conn.CloseNow()
		return nil, fmt.Errorf("%s: %w", ep.where(), err)
	}
	return startSession(ep, conn, clock, &geminiClient{}, 0), nil
}

func geminiHandshake(ctx context.Context, ep Endpoint, clock *Clock, conn *websocket.Conn) error {
	ctx, cancel := clock.WithTimeout(ctx, ep.HandshakeTimeout)
	defer cancel()
	setup := geminiSetup(ep.Realtime)
	m := encodeGemini(glClientMessage{Setup: &setup})
	if err := conn.Write(ctx, m.typ, m.data); err != nil {
		return handshakeError(ctx, ep, "sending setup", err)
	}
	for {
		_, data, err := conn.Read(ctx)
		if err != nil {
			return handshakeError(ctx, ep, "waiting for setupComplete", err)
		}
		var sm glServerMessage
		if err := parseGemini(data, &sm); err != nil {
			return err
		}
		if sm.SetupComplete != nil {
			return nil
		}
	}
}

// geminiClient is the Live API's part of a client session; only the
// session's reader touches it. A model turn's audio is one playback item,
// resampled from 24 to 16 kHz.
type geminiClient struct {
	turn    int              // model turns begun
	talking bool             // a model turn is under way (no turnComplete yet)
	out     *audio.Resampler // the turn's audio to 16 kHz; nil once flushed
	cut     bool             // the turn was interrupted: its later audio is dropped
}

func (*geminiClient) continuous() bool { return false }

func (*geminiClient) encode(frame []float32) ([]message, error) {
	in := glRealtimeInput{Audio: &glBlob{MimeType: geminiInputMime, Data: encodeAudio(frame)}}
	return []message{encodeGemini(glClientMessage{RealtimeInput: &in})}, nil
}

func (c *geminiClient) receive(s *session, _ websocket.MessageType, data []byte) error {
	var m glServerMessage
	if err := parseGemini(data, &m); err != nil {
		return err
	}
	if m.GoAway != nil {
		if err := s.event(Event{Kind: "go_away", Name: "goAway", AgentMs: -1, Message: s.ep.scrub(m.GoAway.TimeLeft)}); err != nil {
			return err
		}
	}
	sc := m.ServerContent
	if sc == nil {
		return nil
	}
	if sc.ModelTurn != nil {
		if err := c.modelTurn(s, sc.ModelTurn); err != nil {
			return err
		}
	}
	if t := sc.OutputTranscription; t != nil {
		if err := s.event(Event{Kind: Transcript, Name: "serverContent.outputTranscription", AgentMs: -1, Text: s.ep.scrub(t.Text)}); err != nil {
			return err
		}
	}
	if t := sc.InputTranscription; t != nil {
		if err := s.event(Event{Kind: InputTranscript, Name: "serverContent.inputTranscription", AgentMs: -1, Text: s.ep.scrub(t.Text)}); err != nil {
			return err
		}
	}
	if sc.Interrupted {
		if err := c.interrupted(s); err != nil {
			return err
		}
	}
	if sc.GenerationComplete || sc.TurnComplete {
		if err := c.flush(s); err != nil {
			return err
		}
	}
	if sc.TurnComplete && c.talking {
		status := "completed"
		if c.cut {
			status = "interrupted"
		}
		c.talking, c.cut = false, false
		return s.event(Event{Kind: ResponseDone, Name: "serverContent.turnComplete", AgentMs: -1, Status: status})
	}
	return nil
}

// modelTurn queues the audio of a piece of the model's turn; the first
// piece of a turn begins a response.
func (c *geminiClient) modelTurn(s *session, t *glContent) error {
	for _, p := range t.Parts {
		if p.InlineData == nil {
			continue // text: not heard
		}
		rate, err := pcmRate(p.InlineData.MimeType, geminiOutRate)
		if err != nil || rate != geminiOutRate {
			return fmt.Errorf("%w: the model's audio is %q; the Live API sends audio/pcm at 24000 Hz", ErrProtocol, s.ep.scrub(p.InlineData.MimeType))
		}
		x, err := decodeAudio("inlineData", p.InlineData.Data)
		if err != nil {
			return err
		}
		if !c.talking {
			c.talking, c.cut = true, false
			c.turn++
			c.out = audio.NewResampler(geminiOutRate, SampleRate)
			if err := s.event(Event{Kind: ResponseStarted, Name: "serverContent.modelTurn", AgentMs: -1}); err != nil {
				return err
			}
		}
		if c.cut || c.out == nil {
			continue
		}
		if err := s.spk.enqueue(c.item(), c.out.Push(x)); err != nil {
			return err
		}
	}
	return nil
}

// interrupted does what a Live API client does when the server says the
// user interrupted the model: stop playback at once, dropping what has
// not been heard, and drop the rest of the turn.
func (c *geminiClient) interrupted(s *session) error {
	c.cut, c.out = c.talking, nil
	_, heard, cut := s.spk.bargeIn()
	if !cut {
		return nil
	}
	return s.event(Event{Kind: BargeIn, Name: "serverContent.interrupted", AgentMs: -1, PlayedMs: heard * 1000 / SampleRate})
}

// flush queues the tail of the turn's resampled audio: the model is done
// generating it.
func (c *geminiClient) flush(s *session) error {
	if c.out == nil {
		return nil
	}
	x := c.out.Flush()
	c.out = nil
	return s.spk.enqueue(c.item(), x)
}

func (c *geminiClient) item() string { return "turn_" + strconv.Itoa(c.turn) }
