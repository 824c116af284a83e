//! The two-state Viterbi pass that smooths keep/drop labels between neighbouring blocks.

/// The most likely keep/drop labels of a sequence of blocks: each block's emission is ln σ(z)
/// for keep and ln(1 − σ(z)) for drop, each step adds `smoothing` × the transition's log
/// probability (`transition[from][to]`, 0 = drop, 1 = keep).
pub fn viterbi(log_odds: &[f64], transition: &[[f32; 2]; 2], smoothing: f64) -> Vec<bool> {
    let emission = |z: f64| [-softplus(z), -softplus(-z)];
    let mut pointers: Vec<[u8; 2]> = Vec::with_capacity(log_odds.len());
    let mut delta = [0.0f64; 2];
    for (i, &z) in log_odds.iter().enumerate() {
        let e = emission(z);
        if i == 0 {
            delta = e;
            pointers.push([0, 0]);
            continue;
        }
        let mut next = [0.0; 2];
        let mut back = [0u8; 2];
        for to in 0..2 {
            let from = |r: usize| delta[r] + smoothing * f64::from(transition[r][to]);
            let best = usize::from(from(1) > from(0));
            back[to] = best as u8;
            next[to] = from(best) + e[to];
        }
        delta = next;
        pointers.push(back);
    }
    let mut labels = vec![false; log_odds.len()];
    let mut state = usize::from(delta[1] > delta[0]);
    for k in (0..log_odds.len()).rev() {
        labels[k] = state == 1;
        state = usize::from(pointers[k][state]);
    }
    labels
}

/// ln(1 + eᶻ) without overflow.
fn softplus(z: f64) -> f64 {
    if z > 30.0 {
        z
    } else {
        z.exp().ln_1p()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viterbi_finds_the_best_path() {
        let odds = [3.0, 2.0, -0.5, 2.5, -3.0, -2.0];
        let sticky = [[-0.1, -3.0], [-3.0, -0.1]];
        assert_eq!(
            viterbi(&odds, &sticky, 0.0),
            [true, true, false, true, false, false]
        );
        // Staying is cheap and switching dear: the weak drop between keeps is kept.
        assert_eq!(
            viterbi(&odds, &sticky, 1.0),
            [true, true, true, true, false, false]
        );
        assert_eq!(viterbi(&[], &sticky, 1.0), Vec::<bool>::new());
    }
}
