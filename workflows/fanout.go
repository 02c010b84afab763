package workflows

import (
	"go.temporal.io/sdk/workflow"
)

// historyBudget is how many history events a fan-out may add before the
// workflow continues as new, well under Temporal's 51,200-event limit.
const historyBudget = 20000

// fanOut starts start(i) for i in [from, n) keeping at most limit futures
// pending, and calls done(i) as each completes. It stops starting new work
// when the history grows past its budget (or the server suggests
// continue-as-new), drains what is pending, and returns the first index not
// started: the caller continues as new from there. The first error stops
// new work and is returned after the pending futures finish.
func fanOut(ctx workflow.Context, from, n, limit int, start func(i int) workflow.Future, done func(i int)) (int, error) {
	limit = max(1, limit)
	sel := workflow.NewSelector(ctx)
	pending := 0
	var firstErr error
	next := from
	launch := func(i int) {
		pending++
		sel.AddFuture(start(i), func(f workflow.Future) {
			pending--
			if err := f.Get(ctx, nil); err != nil {
				if firstErr == nil {
					firstErr = err
				}
				return
			}
			done(i)
		})
	}
	for next < n && firstErr == nil && !tooLong(ctx) {
		if pending < limit {
			launch(next)
			next++
			continue
		}
		sel.Select(ctx)
	}
	for pending > 0 {
		sel.Select(ctx)
	}
	return next, firstErr
}

func tooLong(ctx workflow.Context) bool {
	info := workflow.GetInfo(ctx)
	return info.GetCurrentHistoryLength() > historyBudget || info.GetContinueAsNewSuggested()
}
