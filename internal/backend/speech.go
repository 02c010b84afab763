package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/openai"
	"github.com/floorbench/floorbench/internal/synth"
)

// speech is the openai-speech backend: a synth.TTS whose renderings are
// cached as the endpoint returned them and resampled to 16 kHz.
type speech struct {
	client *openai.Client
	model  string
	format string
	cache  *cache
	lim    limits.Limits // SpeechSPerChar bounds an answer
}

func (s *speech) body(text string, v synth.Voice) []byte {
	data, err := json.Marshal(openai.SpeechRequest{Model: s.model, Input: text, Voice: v.Name, ResponseFormat: s.format})
	if err != nil {
		panic(fmt.Sprintf("backend: a speech request does not encode: %v", err))
	}
	return data
}

// SpeechKey is where the rendering of text in voice v is cached.
func (s *speech) SpeechKey(text string, v synth.Voice) string { return keys.Speech(s.body(text, v)) }

// Synthesize returns the cached rendering, or asks the endpoint and caches
// its audio.
func (s *speech) Synthesize(ctx context.Context, text string, v synth.Voice) ([]float32, error) {
	data, err := s.cache.get(ctx, s.SpeechKey(text, v), func() ([]byte, error) {
		data, err := s.client.Speech(ctx, openai.SpeechRequest{Model: s.model, Input: text, Voice: v.Name, ResponseFormat: s.format})
		if err != nil {
			return nil, err
		}
		// Audio that does not decode is not cached: it is the server's
		// failure, not an answer.
		if _, err := DecodeSpeech(data, s.format, utf8.RuneCountInString(text), s.lim); err != nil {
			return nil, fmt.Errorf("%s/audio/speech, voice %s: %w", s.client.Where(), v.Name, err)
		}
		return data, nil
	})
	if err != nil {
		return nil, err
	}
	x, err := DecodeSpeech(data, s.format, utf8.RuneCountInString(text), s.lim)
	if err != nil {
		return nil, fmt.Errorf("generative cache: %s: %w", s.SpeechKey(text, v), err)
	}
	return x, nil
}

// DecodeSpeech reads a speech endpoint's audio, a mono PCM WAV at any rate
// or the API's headerless 16-bit pcm at openai.PCMRate, and resamples it
// to 16 kHz with the resampler every other input goes through. The answer
// to a text of chars characters may last lim.SpeechSeconds(chars): its
// length is checked from the WAV header or the pcm's size, before
// anything is decoded or resampled.
func DecodeSpeech(data []byte, format string, chars int, lim limits.Limits) ([]float32, error) {
	var (
		x    []float32
		rate int
	)
	switch format {
	case openai.FormatWAV:
		r := bytes.NewReader(data)
		seconds, err := audio.WAVSeconds(r)
		if err != nil {
			return nil, fmt.Errorf("audio: %w", err)
		}
		if err := lim.CheckSpeech("audio", seconds, chars); err != nil {
			return nil, err
		}
		x, rate, err = audio.DecodeWAV(r)
		if err != nil {
			return nil, fmt.Errorf("audio: %w", err)
		}
	case openai.FormatPCM:
		if len(data)%2 != 0 {
			return nil, errors.New("audio: pcm of an odd number of bytes")
		}
		if err := lim.CheckSpeech("audio", float64(len(data)/2)/openai.PCMRate, chars); err != nil {
			return nil, err
		}
		x, rate = make([]float32, len(data)/2), openai.PCMRate
		for i := range x {
			x[i] = float32(int16(uint16(data[2*i])|uint16(data[2*i+1])<<8)) / 32768
		}
	default:
		return nil, fmt.Errorf("audio: unknown format %q", format)
	}
	if len(x) == 0 {
		return nil, errors.New("audio: no samples")
	}
	return audio.Resample(x, rate, audio.Rate), nil
}
