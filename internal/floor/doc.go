// Package floor holds the event taxonomy of spoken floor control and the gold
// sets derived from it (docs/architecture.md#domain-model, docs/protocol.md#gold-derivation): positive anchors, negative spans and
// excluded intervals per task, per conversation and per speaker, for the EOT
// (end of turn) and INT (interruption) tasks.
//
// Every corpus kind's labels are turned into gold here: MPTB event logs
// (DeriveMPTB), TurnBench's annotator tracks (DeriveTurnBench), and AMI's
// timed words, which AMIRules first turn into an MPTB event log.
//
// Speakers are numbered from 1, as in TurnBench's gold export and the
// speaker_1 … speaker_N keys of submissions. Times are seconds (float64).
//
// # AMI floor rules
//
// AMIRules (defaults in DefaultAMIRules) derive MPTB events from the
// timed words and vocal sounds; words without times are dropped and
// counted. All thresholds are seconds.
//
//  1. Talk spurts: a speaker's vocalisations separated by less than
//     SpurtBridge (0.2) form one spurt, the 200 ms fill-in of Brady (1968)
//     also used by Heldner & Edlund (2010).
//  2. A spurt of vocal sounds only is NON_CONTENT. A spurt whose words
//     carry dialogue acts is a BACKCHANNEL exactly when all those acts are
//     of type Backchannel (the acts take precedence over the lexicon);
//     without acts, a spurt of at most BackchannelMaxWords (3) words, at
//     most BackchannelMaxDur (1.0) long, every word from a continuer
//     lexicon (yeah, mm-hmm, uh-huh, right, okay, ...), is a BACKCHANNEL.
//     Neither changes the floor; their floor holder is the speaker whose
//     turn (holds included) covers their start.
//  3. Spurts are taken in time order. The first floor-capable spurt opens a
//     TURN. The holder's next spurt continues the turn (their own coughs
//     and laughs are NON_CONTENT and do not); a pause of at least MinHold
//     (0.2) before it is a hold (after a question when the word before it
//     is followed by "?"). A holder silent for more than MaxHold (2.0)
//     has let the floor go: the turn ends yielded at its last word.
//  4. Another speaker's floor-capable spurt that starts while the holder is
//     silent takes the floor after a gap: the turn ends yielded.
//  5. One that starts while the holder speaks (overlap) is a successful
//     INTERRUPTION when the holder's spurt stops within InterruptWindow
//     (1.5; the generator's holders talk on 0.05 to 1.5 s over a claim) of
//     its onset and the intruder talks on at least MinOutlast (0.3) after
//     that: the holder's turn ends interrupted there, the INTERRUPTION spans
//     onset to that stop, and the intruder's TURN starts at the stop.
//  6. If the holder stops later than the window and the intruder talks on,
//     the holder finished their turn (yielded); the overlap is an
//     INTERRUPTION_ATTEMPT (excluded from INT) and the intruder's turn
//     starts at the holder's stop.
//  7. Otherwise the holder keeps the floor: the spurt is a
//     NON_FLOOR_TAKING_INTERRUPTION with at most InterjectionMaxWords (3)
//     words, else an INTERRUPTION_ATTEMPT. A spurt that started before the
//     current turn (a third voice in a multi-way overlap) lands here too.
//
// FloorBefore and FloorAfter follow the generator's conventions: a turn
// after a gap has floor_before 0, an interrupter's turn its own speaker,
// an interrupted turn's floor_after the interrupter.
//
// One package on purpose: the floor events and the
// gold of all three sources (MPTB event logs, TurnBench annotations, AMI
// words and dialogue acts) build the same GoldSet under the same
// validation.
package floor
