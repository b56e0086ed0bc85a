package retry_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/factreasoner/factreasoner-go/retry"
)

// A client asks a server that is busy twice before it answers. The policy
// is shared by every client of a run; its Notify reports the retries.
func ExampleDo() {
	busy := 2
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if busy > 0 {
			busy--
			w.Header().Set("Retry-After-Ms", "10")
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "hello")
	}))
	defer srv.Close()

	policy := &retry.Policy{Retries: 3, MinWait: 10 * time.Millisecond,
		Notify: func(err error, attempt int, wait time.Duration) {
			fmt.Fprintf(os.Stdout, "attempt %d: %v; retrying in %v\n", attempt, err, wait)
		}}
	body, err := retry.Do(context.Background(), policy, func(attempt int) (string, error) {
		resp, err := http.Get(srv.URL)
		if err != nil {
			return "", err // a network error: repeated
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return "", err
		}
		if resp.StatusCode != http.StatusOK {
			// 429 and 5xx are repeated after the server's Retry-After;
			// other statuses are not.
			return "", retry.ForStatus(fmt.Errorf("GET: %s", resp.Status), resp)
		}
		return string(b), nil
	})
	fmt.Println(body, err)
	// Output:
	// attempt 1: GET: 503 Service Unavailable; retrying in 10ms
	// attempt 2: GET: 503 Service Unavailable; retrying in 10ms
	// hello <nil>
}
