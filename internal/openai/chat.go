package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/floorbench/floorbench/internal/redact"
)

// Message is one message of a chat.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatRequest is the body of a chat completion: everything that decides
// the answer, so its encoding is what a cached answer is keyed by.
type ChatRequest struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Temperature float64   `json:"temperature"`
	MaxTokens   int       `json:"max_tokens"`
	Seed        uint64    `json:"seed"`
	// ResponseFormat asks servers that can for a JSON object.
	ResponseFormat struct {
		Type string `json:"type"`
	} `json:"response_format"`
}

// ChatAnswer is the first choice of a chat completion.
type ChatAnswer struct {
	Content string `json:"content"`
	// Truncated is true when the model stopped at max_tokens
	// (finish_reason "length"): the content is cut off.
	Truncated bool `json:"truncated,omitempty"`
}

// maxChatAnswer bounds the bytes of a chat completion read.
const maxChatAnswer = 4 << 20

// Chat sends r to {endpoint}/chat/completions.
func (c *Client) Chat(ctx context.Context, r ChatRequest) (ChatAnswer, error) {
	body, err := json.Marshal(r)
	if err != nil {
		return ChatAnswer{}, err
	}
	data, err := c.post(ctx, "/chat/completions", body, maxChatAnswer)
	if err != nil {
		return ChatAnswer{}, err
	}
	a, err := ParseChatResponse(data)
	if err != nil {
		return ChatAnswer{}, fmt.Errorf("%s/chat/completions: %w", c.Where(), err)
	}
	return a, nil
}

// ParseChatResponse reads a chat completion's body: the first choice's
// message content and whether it was cut off. Errors never quote the body.
func ParseChatResponse(data []byte) (ChatAnswer, error) {
	var resp struct {
		Choices []struct {
			Message *struct {
				Content *string `json:"content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(data, &resp); err != nil {
		return ChatAnswer{}, fmt.Errorf("answer is not a chat completion (%v)", redact.JSON(err))
	}
	if len(resp.Choices) == 0 || resp.Choices[0].Message == nil || resp.Choices[0].Message.Content == nil {
		return ChatAnswer{}, errors.New("answer is not a chat completion (no choices[0].message.content)")
	}
	ch := resp.Choices[0]
	return ChatAnswer{Content: *ch.Message.Content, Truncated: ch.FinishReason == "length"}, nil
}
