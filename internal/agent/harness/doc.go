// Package harness plays the trials of a scenario set to a voice agent over
// a real protocol session and records them (docs/agents.md#harness).
//
// # One trial
//
// Play sends the scenario's mix to the agent frame by frame on the
// session's clock and keeps what a listener heard from the agent, one
// frame per 20 ms slot, on the same timeline. A START trial is the tape and
// nothing else. A STOP trial is reactive: after the tape (which ends with a
// question to the agent) the harness plays silence and listens to the
// agent's output with the scorer's own voice activity detector
// (agent.VADStream); once it hears the agent talking after the prompt's
// end (the onset is that of the speech going on then, however early it
// began; what the agent said and stopped during the tape does not count),
// it waits the
// scenario's stimulus delay and plays the stimulus (the interruption or
// backchannel) into the mix, then records long enough for the scoring
// windows. An agent that does not start within Options.OnsetWait leaves a
// recording whose stimulus was never played; the scorer counts it as such.
//
// # Many trials
//
// Run plays every scenario of a set Repeats times, at most Concurrency
// trials at once, each over its own session. A trial whose folder already
// holds a valid recording is not played again, so an interrupted run
// resumes where it stopped. A session that fails (refused, dropped,
// malformed, silent past its deadline) is retried up to Retries times;
// a trial that still fails is recorded with its error and no audio, and
// the run goes on.
//
// # One session runner
//
// PlaySession is how every session of the agent feature is opened, played
// and closed, a trial's (PlayTrial) and a seat's (seated.Session), on the
// command line and in a sweep's activities alike: a clock at the
// endpoint's rate, one deadline (SessionDeadline: the longest the session
// can play and the endpoint's handshake timeout), Dial, play, Close. The
// bounds and defaults of a run (sessions at once, retries, repeats) are
// in internal/limits; an endpoint's settings are checked by
// proto.Endpoint.Check. A set's run (RunOptions) and a corpus's seats
// (seated.Options) share one type for how sessions are opened (Sessions:
// the endpoint, sessions at once, retries, back-off, progress), checked
// once by Sessions.Check.
package harness
