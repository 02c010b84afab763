package proto

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/coder/websocket"

	"github.com/floorbench/floorbench/internal/redact"
)

// The realtime protocol's audio: PCM16 mono at 24 kHz, the only PCM rate
// the OpenAI Realtime API speaks (docs/agents.md#realtime).
const (
	realtimeRate    = 24000
	realtimeBeta    = "pcm16"     // the beta API's name of the format
	realtimeGAType  = "audio/pcm" // the GA API's format type
	realtimeVAD     = "server_vad"
	realtimeSession = "realtime" // the GA API's session type
)

// rtEvent is any event of the realtime protocol, either way; Type says
// which fields it uses. Unknown fields are ignored.
type rtEvent struct {
	Type         string      `json:"type"`
	EventID      string      `json:"event_id,omitempty"`
	Session      *rtSession  `json:"session,omitempty"`
	Audio        string      `json:"audio,omitempty"`
	Delta        string      `json:"delta,omitempty"`
	Transcript   string      `json:"transcript,omitempty"`
	ResponseID   string      `json:"response_id,omitempty"`
	ItemID       string      `json:"item_id,omitempty"`
	OutputIndex  *int        `json:"output_index,omitempty"`
	ContentIndex *int        `json:"content_index,omitempty"`
	AudioStartMs *int64      `json:"audio_start_ms,omitempty"`
	AudioEndMs   *int64      `json:"audio_end_ms,omitempty"`
	Response     *rtResponse `json:"response,omitempty"`
	Item         *rtItem     `json:"item,omitempty"`
	Part         *rtPart     `json:"part,omitempty"`
	Error        *rtError    `json:"error,omitempty"`
}

// rtItem is a conversation item: here an assistant message, the item a
// response's audio belongs to.
type rtItem struct {
	ID      string   `json:"id,omitempty"`
	Object  string   `json:"object,omitempty"`
	Type    string   `json:"type,omitempty"`
	Status  string   `json:"status,omitempty"`
	Role    string   `json:"role,omitempty"`
	Content []rtPart `json:"content"`
}

// rtPart is a content part of an item: audio, with its transcript.
type rtPart struct {
	Type       string `json:"type"`
	Transcript string `json:"transcript"`
}

// rtSession is a session configuration in the beta shape (flat audio
// formats) or the GA shape (type "realtime", formats under audio).
type rtSession struct {
	Type              string          `json:"type,omitempty"`
	Object            string          `json:"object,omitempty"`
	ID                string          `json:"id,omitempty"`
	Model             string          `json:"model,omitempty"`
	Modalities        []string        `json:"modalities,omitempty"`
	OutputModalities  []string        `json:"output_modalities,omitempty"`
	Instructions      string          `json:"instructions,omitempty"`
	Voice             string          `json:"voice,omitempty"`
	InputAudioFormat  string          `json:"input_audio_format,omitempty"`
	OutputAudioFormat string          `json:"output_audio_format,omitempty"`
	TurnDetection     json.RawMessage `json:"turn_detection,omitempty"`
	Audio             *rtAudio        `json:"audio,omitempty"`
}

type rtAudio struct {
	Input  *rtAudioSide `json:"input,omitempty"`
	Output *rtAudioSide `json:"output,omitempty"`
}

type rtAudioSide struct {
	Format        *rtFormat       `json:"format,omitempty"`
	TurnDetection json.RawMessage `json:"turn_detection,omitempty"`
	Voice         string          `json:"voice,omitempty"`
}

type rtFormat struct {
	Type string `json:"type,omitempty"`
	Rate int    `json:"rate,omitempty"`
}

type rtResponse struct {
	ID            string           `json:"id,omitempty"`
	Object        string           `json:"object,omitempty"`
	Status        string           `json:"status,omitempty"`
	StatusDetails *rtStatusDetails `json:"status_details,omitempty"`
	Output        []rtItem         `json:"output,omitempty"`
}

type rtStatusDetails struct {
	Type   string `json:"type,omitempty"`
	Reason string `json:"reason,omitempty"`
}

type rtError struct {
	Type    string `json:"type,omitempty"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// parseRealtime reads one realtime event: a JSON object with a string type.
func parseRealtime(typ websocket.MessageType, data []byte) (rtEvent, error) {
	var e rtEvent
	if typ != websocket.MessageText {
		return e, fmt.Errorf("%w: a binary message of %d bytes; realtime events are JSON text", ErrProtocol, len(data))
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return e, fmt.Errorf("%w: a message is not a JSON event object (%d bytes; %v)", ErrProtocol, len(data), redact.JSON(err))
	}
	if e.Type == "" {
		return e, fmt.Errorf("%w: an event has no type", ErrProtocol)
	}
	return e, nil
}

// encodeRealtime is a text message.
func encodeRealtime(e rtEvent) message {
	data, _ := json.Marshal(e) // strings, numbers and raw JSON that was valid
	return message{websocket.MessageText, data}
}

// decodeAudio reads a base64 field of PCM16 audio.
func decodeAudio(field, b64 string) ([]float32, error) {
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not base64", ErrProtocol, field)
	}
	x, err := decodePCM16(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	return x, nil
}

// encodeAudio is x as a base64 field of PCM16.
func encodeAudio(x []float32) string { return base64.StdEncoding.EncodeToString(encodePCM16(x)) }

// formats checks the audio formats a session declares: PCM16 at 24 kHz
// both ways, in either shape. A format left out is the API's default,
// PCM16 at 24 kHz. scrub makes the agent's strings fit to print.
func (s *rtSession) formats(scrub func(string) string) error {
	for _, f := range []struct{ name, value string }{
		{"input_audio_format", s.InputAudioFormat}, {"output_audio_format", s.OutputAudioFormat},
	} {
		if f.value != "" && f.value != realtimeBeta {
			return fmt.Errorf("%w: the session declares %s %q; floorbench speaks pcm16 at 24000 Hz", ErrProtocol, f.name, scrub(f.value))
		}
	}
	if s.Audio == nil {
		return nil
	}
	for _, side := range []struct {
		name string
		a    *rtAudioSide
	}{{"audio.input.format", s.Audio.Input}, {"audio.output.format", s.Audio.Output}} {
		if side.a == nil || side.a.Format == nil {
			continue
		}
		f := side.a.Format
		if f.Type != "" && f.Type != realtimeGAType {
			return fmt.Errorf("%w: the session declares %s type %q; floorbench speaks audio/pcm at 24000 Hz", ErrProtocol, side.name, scrub(f.Type))
		}
		if f.Rate != 0 && f.Rate != realtimeRate {
			return fmt.Errorf("%w: the session declares %s rate %d; floorbench speaks audio/pcm at 24000 Hz", ErrProtocol, side.name, f.Rate)
		}
	}
	return nil
}

// voice is the voice the session names, in either shape ("" if none).
func (s *rtSession) voice() string {
	if s.Audio != nil && s.Audio.Output != nil && s.Audio.Output.Voice != "" {
		return s.Audio.Output.Voice
	}
	return s.Voice
}

// ga reports whether the session is in the GA shape.
func (s *rtSession) ga() bool { return s.Type == realtimeSession }

// turnDetection is the session's turn detection: its type ("none" for
// null, "" when the session does not say) and parameters.
func (s *rtSession) turnDetection() (rtTurnDetection, error) {
	raw := s.TurnDetection
	if s.Audio != nil && s.Audio.Input != nil && len(s.Audio.Input.TurnDetection) > 0 {
		raw = s.Audio.Input.TurnDetection
	}
	if len(raw) == 0 {
		return rtTurnDetection{}, nil
	}
	if string(raw) == "null" {
		return rtTurnDetection{Type: "none"}, nil
	}
	var td rtTurnDetection
	if err := json.Unmarshal(raw, &td); err != nil || td.Type == "" {
		return rtTurnDetection{}, fmt.Errorf("%w: turn_detection is neither null nor an object with a type and parameters of their kinds", ErrProtocol)
	}
	return td, nil
}

func ptr[T any](v T) *T { return &v }
