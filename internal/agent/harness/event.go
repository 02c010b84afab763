package harness

import (
	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/proto"
)

// ProviderEvent is a session's event at session time at (seconds) as a
// recording keeps it (docs/agents.md#recordings): a barge-in, and a
// response cancelled or left incomplete, are interrupted.
func ProviderEvent(e *proto.Event, at float64) agent.ProviderEvent { return eventOf(e, at) }
