package openai

import (
	"context"
	"encoding/json"
)

// SpeechRequest is the body of a speech request: everything that decides
// the audio, so its encoding is what cached audio is keyed by.
type SpeechRequest struct {
	Model          string `json:"model"`
	Input          string `json:"input"`
	Voice          string `json:"voice"`
	ResponseFormat string `json:"response_format"` // wav or pcm
}

// Speech formats a SpeechRequest may ask for.
const (
	FormatWAV = "wav"
	FormatPCM = "pcm" // 16-bit little-endian mono at PCMRate, no header
)

// PCMRate is the sample rate of the API's headerless pcm format.
const PCMRate = 24000

// maxSpeech bounds the bytes of one utterance's audio: ten minutes of
// 48 kHz 16-bit mono.
const maxSpeech = 10 * 60 * 48000 * 2

// Speech sends r to {endpoint}/audio/speech and returns the audio bytes.
func (c *Client) Speech(ctx context.Context, r SpeechRequest) ([]byte, error) {
	body, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	return c.post(ctx, "/audio/speech", body, maxSpeech)
}
