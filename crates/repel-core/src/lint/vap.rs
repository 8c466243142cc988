//! The single-object rules as a ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1).
