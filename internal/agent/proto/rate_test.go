package proto

// testRate is the playback rate of these tests: twice real time. The
// tests that play a whole session run in a testing/synctest bubble, where
// the rate changes nothing but the fake time; the fault tests, which need
// sockets, run on the wall clock at this rate with or without the race
// detector.
const testRate = 2
