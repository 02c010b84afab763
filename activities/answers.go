package activities

import (
	"context"
	"errors"
	"fmt"

	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/store"
)

// storedAnswers is the store as a detect.AnswerCache: what the endpoints
// of realtime-vad systems answered, under keys.ProviderAnswer, so that a
// retried or resumed Infer sends no channel twice.
type storedAnswers struct{ store store.Store }

func (s storedAnswers) Get(ctx context.Context, request string) ([]byte, bool, error) {
	key := keys.ProviderAnswer(request)
	data, err := store.GetBytes(ctx, s.store, key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", key, err)
	}
	return data, true, nil
}

func (s storedAnswers) Put(ctx context.Context, request string, data []byte) error {
	key := keys.ProviderAnswer(request)
	if err := store.PutBytes(ctx, s.store, key, data); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}
