package kafkaproto

import (
	"bytes"
	"math/rand"
	"testing"

	"kafka-eos-harness/toxiproxy/kafkaproto/recordedtest"
)

func recordedStream(t *testing.T) (stream []byte, starts map[int]bool) {
	t.Helper()
	starts = map[int]bool{}
	for _, r := range recordedtest.Load(t) {
		request := r.Request
		starts[len(stream)] = true
		stream = append(stream, request...)
	}
	return stream, starts
}

func looksLikeRequest(head []byte) bool {
	h, err := ParseRequestHeader(head)
	return err == nil && h.Plausible()
}

// However the stream is chunked, the pieces put it back together byte for byte, frame starts
// are exactly the frame boundaries, and a start piece holds the frame's whole head.
func TestSplitterFindsEveryFrameInAnyChunking(t *testing.T) {
	stream, starts := recordedStream(t)
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 200; round++ {
		s := Splitter{Looks: looksLikeRequest}
		var joined []byte
		found := map[int]bool{}
		for pos := 0; pos < len(stream); {
			n := 1 + rng.Intn([]int{3, 40, 700, 5000}[round%4])
			n = min(n, len(stream)-pos)
			s.Feed(append([]byte{}, stream[pos:pos+n]...), func(piece []byte, start bool) {
				if start {
					found[len(joined)] = true
					size := FrameSize(piece)
					if len(piece) < min(size, HeadBytes) {
						t.Fatalf("start piece of %d bytes, frame %d", len(piece), size)
					}
				}
				joined = append(joined, piece...)
			})
			pos += n
		}
		if !bytes.Equal(joined, stream) {
			t.Fatalf("round %d: pieces do not rebuild the stream", round)
		}
		if len(found) != len(starts) {
			t.Fatalf("round %d: %d frame starts found, %d in the stream", round, len(found), len(starts))
		}
		for at := range found {
			if !starts[at] {
				t.Fatalf("round %d: a start at %d is no frame boundary", round, at)
			}
		}
	}
}

// Joined in the middle of a frame, the Splitter reads nothing as a frame until a chunk starts
// with one, and loses no byte.
func TestSplitterJoinedMidFrameWaitsForAChunkThatStartsAFrame(t *testing.T) {
	stream, starts := recordedStream(t)
	var boundaries []int
	for at := range starts {
		boundaries = append(boundaries, at)
	}
	s := Splitter{Looks: looksLikeRequest}
	var joined []byte
	var found []int
	feed := func(chunk []byte) {
		s.Feed(append([]byte{}, chunk...), func(piece []byte, start bool) {
			if start {
				found = append(found, len(joined))
			}
			joined = append(joined, piece...)
		})
	}
	// Start 7 bytes into the first frame, in chunks that end mid-frame, then one at a boundary.
	first, second := 7, len(recordedtest.Load(t)[0].Request)
	feed(stream[first:20])
	feed(stream[20:second])
	feed(stream[second:])
	if !bytes.Equal(joined, stream[first:]) {
		t.Fatal("bytes lost while out of step")
	}
	if len(found) == 0 || found[0] != second-first {
		t.Fatalf("first frame start at %v, want %d", found, second-first)
	}
	if len(found) != len(boundaries)-1 {
		t.Fatalf("%d starts after resync, want %d", len(found), len(boundaries)-1)
	}
}

func TestImplausibleSizeIsOutOfStep(t *testing.T) {
	s := Splitter{}
	var pieces int
	s.Feed([]byte{0xff, 0xff, 0xff, 0xff, 1, 2, 3}, func(piece []byte, start bool) {
		if start {
			t.Fatal("a negative size read as a frame")
		}
		pieces++
	})
	if pieces == 0 {
		t.Fatal("bytes held back")
	}
}
