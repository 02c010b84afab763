package backend

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/openai"
	"github.com/floorbench/floorbench/internal/synth"
)

// chat is the openai-chat backend: a synth.Chat whose answers are cached.
type chat struct {
	client *openai.Client
	model  string
	cache  *cache
}

func (c *chat) request(p synth.ChatPrompt) openai.ChatRequest {
	r := openai.ChatRequest{Model: c.model, Temperature: ChatTemperature, MaxTokens: p.MaxTokens, Seed: p.Seed,
		Messages: []openai.Message{{Role: "system", Content: p.System}, {Role: "user", Content: p.User}}}
	r.ResponseFormat.Type = "json_object"
	return r
}

// body is the request's JSON: what the answer is keyed by and what is sent.
func (c *chat) body(p synth.ChatPrompt) []byte {
	data, err := json.Marshal(c.request(p))
	if err != nil {
		panic(fmt.Sprintf("backend: a chat request does not encode: %v", err))
	}
	return data
}

// ChatKey is where the answer to p is cached.
func (c *chat) ChatKey(p synth.ChatPrompt) string { return keys.ChatAnswer(c.body(p)) }

// Answer returns the cached answer to p, or asks the endpoint and caches
// its answer, whatever it says: a rejected answer is cached too, so that
// a regeneration replays the same tries without a request.
func (c *chat) Answer(ctx context.Context, p synth.ChatPrompt) (synth.ChatAnswer, error) {
	data, err := c.cache.get(ctx, c.ChatKey(p), func() ([]byte, error) {
		a, err := c.client.Chat(ctx, c.request(p))
		if err != nil {
			return nil, err
		}
		return json.Marshal(a)
	})
	if err != nil {
		return synth.ChatAnswer{}, err
	}
	var a openai.ChatAnswer
	if err := json.Unmarshal(data, &a); err != nil {
		return synth.ChatAnswer{}, fmt.Errorf("generative cache: %s: not a cached chat answer", c.ChatKey(p))
	}
	return synth.ChatAnswer{Text: a.Content, Truncated: a.Truncated}, nil
}
