package activities

import (
	"context"
	"errors"

	"github.com/floorbench/floorbench/internal/store"
)

// storedAnswers is the store as a detect.AnswerCache: what the endpoints
// of realtime-vad systems answered, under keys.ProviderAnswer, so that a
// retried or resumed Infer sends no channel twice.
type storedAnswers struct{ store store.Store }

func (s storedAnswers) Get(ctx context.Context, key string) ([]byte, bool, error) {
	data, err := store.GetBytes(ctx, s.store, key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	return data, err == nil, err
}

func (s storedAnswers) Put(ctx context.Context, key string, data []byte) error {
	return store.PutBytes(ctx, s.store, key, data)
}
