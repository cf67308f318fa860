// A gRPC load generator for bench/grpc-vs-rest.ts: unary calls of raw request bytes (no
// generated stubs: the bytes are made by the bench from the project's .proto), -c calls in
// flight over -conns HTTP/2 connections for -d seconds, each call the next request of the
// list in turn. Go's gRPC client costs the machine little CPU per call, as wrk does for REST,
// so that the load generator does not take the cores the server needs. Prints one JSON line.
//
// Requests file: one call a line, "<method> <request message as base64>".
package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
)

// rawCodec sends and receives messages as bytes, as they are.
type rawCodec struct{}

func (rawCodec) Marshal(v interface{}) ([]byte, error)      { return *(v.(*[]byte)), nil }
func (rawCodec) Unmarshal(data []byte, v interface{}) error { *(v.(*[]byte)) = data; return nil }
func (rawCodec) Name() string                               { return "proto" }

type call struct {
	method string
	bytes  []byte
}

func main() {
	addr := flag.String("addr", "127.0.0.1:3007", "server host:port")
	service := flag.String("service", "datanode.api.v2.TradingDataService", "the methods' service")
	requests := flag.String("requests", "", "requests file")
	concurrency := flag.Int("c", 32, "calls in flight")
	conns := flag.Int("conns", 4, "HTTP/2 connections")
	seconds := flag.Float64("d", 5, "seconds")
	flag.Parse()

	calls, err := readCalls(*requests, *service)
	if err != nil {
		fail(err)
	}
	clients := make([]*grpc.ClientConn, *conns)
	for i := range clients {
		// WithBlock: connected before the clock starts.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		clients[i], err = grpc.DialContext(ctx, *addr, grpc.WithInsecure(), grpc.WithBlock(),
			grpc.WithDefaultCallOptions(grpc.ForceCodec(rawCodec{}), grpc.MaxCallRecvMsgSize(1<<30)))
		cancel()
		if err != nil {
			fail(err)
		}
	}

	var next, errors int64
	latencies := make([][]time.Duration, *concurrency)
	until := time.Now().Add(time.Duration(*seconds * float64(time.Second)))
	started := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < *concurrency; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			conn := clients[w%len(clients)]
			var reply []byte
			for time.Now().Before(until) {
				c := calls[int(atomic.AddInt64(&next, 1)-1)%len(calls)]
				t := time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				err := conn.Invoke(ctx, c.method, &c.bytes, &reply)
				cancel()
				if err != nil {
					atomic.AddInt64(&errors, 1)
					continue
				}
				latencies[w] = append(latencies[w], time.Since(t))
			}
		}(w)
	}
	wg.Wait()
	elapsed := time.Since(started).Seconds()
	var all []time.Duration
	for _, l := range latencies {
		all = append(all, l...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	at := func(q float64) float64 {
		if len(all) == 0 {
			return 0
		}
		return float64(all[int(q*float64(len(all)-1))].Microseconds()) / 1000
	}
	out, _ := json.Marshal(map[string]interface{}{
		"calls": len(all), "errors": errors, "seconds": elapsed, "p50": at(0.5), "p99": at(0.99),
	})
	fmt.Println(string(out))
}

func readCalls(path, service string) ([]call, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var calls []call
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 1<<24)
	for scanner.Scan() {
		parts := strings.SplitN(scanner.Text(), " ", 2)
		if len(parts) != 2 {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(parts[1])
		if err != nil {
			return nil, err
		}
		calls = append(calls, call{method: "/" + service + "/" + parts[0], bytes: b})
	}
	if len(calls) == 0 {
		return nil, fmt.Errorf("no requests in %s", path)
	}
	return calls, scanner.Err()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "grpc-load:", err)
	os.Exit(1)
}
