/* Two phases per round (the program of crates/cli/tests/run_sampling.rs): a loop of
 * independent adds, then a loop with a data-dependent branch taken one time in
 * seven. phases ROUNDS (about 0.46 M instructions per round at -O1) */

#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    double s = 0; long c = 0;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < 20000; i++) s += i * 0.5;
        for (int i = 0; i < 20000; i++) if ((i * 2654435761u) % 7 == 0) c++; else s += 1.0;
    }
    printf("%f %ld\n", s, c);
    return 0;
}
