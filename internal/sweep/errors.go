package sweep

import (
	"errors"

	"go.temporal.io/sdk/temporal"
)

// The types of the application errors an activity fails with when
// retrying cannot help: the workflows' retry policies name them as not
// retryable (NonRetryable), and the in-process executor does not retry a
// trial that failed with BadInput.
const (
	// BadInput is an input that is wrong and stays wrong: a spec, a file
	// or a stored object a user named that does not parse or resolve.
	BadInput = "BadInput"
	// Corrupt is a stored object whose bytes do not match the content
	// hash that names it.
	Corrupt = "Corrupt"
)

// NonRetryable are the error types no retry heals, for a retry policy's
// NonRetryableErrorTypes.
func NonRetryable() []string { return []string{BadInput, Corrupt} }

// FailureMessage is the cause of a failed run, said once. Each wrapper
// of a Temporal failure (workflow, child workflow, activity) repeats every
// message under it, so the deepest error is the one a user acts on; an
// application error is its message, without Temporal's "(type: ...,
// retryable: ...)"; when the deepest error is not the activity's own (a
// timeout, a cancellation) the activity it happened in is named.
func FailureMessage(err error) string {
	deepest := err
	for u := errors.Unwrap(deepest); u != nil; u = errors.Unwrap(deepest) {
		deepest = u
	}
	var app *temporal.ApplicationError
	if errors.As(deepest, &app) {
		return app.Message()
	}
	var act *temporal.ActivityError
	if errors.As(err, &act) {
		return "activity " + act.ActivityType().GetName() + ": " + deepest.Error()
	}
	return deepest.Error()
}
