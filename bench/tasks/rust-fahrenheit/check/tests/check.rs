use temps::{celsius_to_fahrenheit, fahrenheit_to_celsius};

#[test]
fn conversions() {
    assert_eq!(celsius_to_fahrenheit(100.0), 212.0);
    assert_eq!(celsius_to_fahrenheit(0.0), 32.0);
    assert_eq!(fahrenheit_to_celsius(212.0), 100.0);
}
