package temporalclient_test

import (
	"testing"

	"github.com/floorbench/floorbench/internal/temporalclient"
)

// The fault tests' guard, tested: a fault that could only fire on the
// final, completed status (as Watch hands it over) does not count as
// injected, so the fault test fails instead of passing without a fault.
func TestFaultGuardIgnoresFaultsAfterCompletion(t *testing.T) {
	injectOnAnything := func(temporalclient.Status) bool { return true }
	show, fired := faultGuard(injectOnAnything)
	show(temporalclient.Status{State: "completed"})
	if fired() {
		t.Fatal("a fault injected after completion counts as injected")
	}
	show(temporalclient.Status{State: "running"})
	if !fired() {
		t.Fatal("a fault injected while running does not count")
	}
	calls := 0
	show, fired = faultGuard(func(temporalclient.Status) bool { calls++; return calls == 2 })
	for range 3 {
		show(temporalclient.Status{State: "running"})
	}
	if !fired() || calls != 2 {
		t.Fatalf("injector offered %d statuses, fired %v; want it offered until it fires", calls, fired())
	}
	if _, fired := faultGuard(nil); !fired() {
		t.Fatal("an undisturbed run needs no fault")
	}
}
