//! The logistic-regression learner: standardised inputs, L2-regularised, fitted by Newton's
//! method (a Cholesky solve per step).

use super::Example;
use crate::decide::INPUTS;

pub(super) fn standardisation(examples: &[Example]) -> (Vec<f32>, Vec<f32>) {
    let n = examples.len().max(1) as f64;
    let mut mean = vec![0.0f64; INPUTS];
    let mut square = vec![0.0f64; INPUTS];
    for e in examples {
        for (j, &v) in e.x.iter().enumerate() {
            mean[j] += f64::from(v) / n;
            square[j] += f64::from(v) * f64::from(v) / n;
        }
    }
    let scale = mean
        .iter()
        .zip(&square)
        .map(|(m, s)| {
            let sd = (s - m * m).max(0.0).sqrt();
            if sd > 1e-6 {
                sd as f32
            } else {
                1.0
            }
        })
        .collect();
    (mean.iter().map(|&m| m as f32).collect(), scale)
}

/// Weighted, L2-regularised logistic regression by Newton's method on standardised inputs.
/// Returns (weights, intercept).
pub(super) fn fit_logistic(
    examples: &[Example],
    mean: &[f32],
    scale: &[f32],
    l2: f64,
) -> (Vec<f32>, f32) {
    let d = INPUTS + 1; // last coefficient: intercept (not penalised)
    let total: f64 = examples.iter().map(|e| e.weight).sum::<f64>().max(1e-9);
    let norm = examples.len() as f64 / total;
    let rows: Vec<(Vec<f64>, f64, f64)> = examples
        .iter()
        .map(|e| {
            let mut x: Vec<f64> = (0..INPUTS)
                .map(|j| f64::from((e.x[j] - mean[j]) / scale[j]))
                .collect();
            x.push(1.0);
            (x, f64::from(u8::from(e.keep)), e.weight * norm)
        })
        .collect();
    let mut beta = vec![0.0f64; d];
    for _ in 0..25 {
        let mut gradient = vec![0.0; d];
        let mut hessian = vec![0.0; d * d];
        for (x, y, w) in &rows {
            let z: f64 = x.iter().zip(&beta).map(|(a, b)| a * b).sum();
            let p = 1.0 / (1.0 + (-z).exp());
            let g = w * (p - y);
            let h = w * (p * (1.0 - p)).max(1e-9);
            for j in 0..d {
                gradient[j] += g * x[j];
                let hx = h * x[j];
                for k in 0..=j {
                    hessian[j * d + k] += hx * x[k];
                }
            }
        }
        for j in 0..d {
            for k in 0..j {
                hessian[k * d + j] = hessian[j * d + k];
            }
            if j < INPUTS {
                gradient[j] += l2 * beta[j];
                hessian[j * d + j] += l2;
            } else {
                hessian[j * d + j] += 1e-9;
            }
        }
        let step = solve_cholesky(&hessian, &gradient, d);
        let mut largest: f64 = 0.0;
        for (b, s) in beta.iter_mut().zip(&step) {
            *b -= s;
            largest = largest.max(s.abs());
        }
        if largest < 1e-7 {
            break;
        }
    }
    let intercept = beta.pop().unwrap_or(0.0) as f32;
    (beta.iter().map(|&b| b as f32).collect(), intercept)
}

/// Solves `a x = b` for a symmetric positive definite `a` (n × n, row-major).
fn solve_cholesky(a: &[f64], b: &[f64], n: usize) -> Vec<f64> {
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let mut sum = a[i * n + j];
            for k in 0..j {
                sum -= l[i * n + k] * l[j * n + k];
            }
            l[i * n + j] = if i == j {
                sum.max(1e-12).sqrt()
            } else {
                sum / l[j * n + j]
            };
        }
    }
    let mut y = vec![0.0; n];
    for i in 0..n {
        let sum: f64 = (0..i).map(|k| l[i * n + k] * y[k]).sum();
        y[i] = (b[i] - sum) / l[i * n + i];
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let sum: f64 = (i + 1..n).map(|k| l[k * n + i] * x[k]).sum();
        x[i] = (y[i] - sum) / l[i * n + i];
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cholesky_solves_a_small_system() {
        let a = [4.0, 2.0, 2.0, 3.0];
        let x = solve_cholesky(&a, &[2.0, 1.0], 2);
        assert!((4.0 * x[0] + 2.0 * x[1] - 2.0).abs() < 1e-12);
        assert!((2.0 * x[0] + 3.0 * x[1] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn logistic_regression_separates_a_separable_feature() {
        let mut examples = Vec::new();
        for i in 0..200 {
            let mut x = [0.0; INPUTS];
            x[0] = i as f32 / 100.0;
            examples.push(Example {
                x,
                keep: i >= 100,
                weight: 1.0,
                set: 0,
            });
        }
        let (mean, scale) = standardisation(&examples);
        let (w, b) = fit_logistic(&examples, &mean, &scale, 1.0);
        let z = |v: f32| b + w[0] * (v - mean[0]) / scale[0];
        assert!(z(1.9) > 2.0 && z(0.1) < -2.0);
    }
}
