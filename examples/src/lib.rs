//! Runnable examples of fsmc-generated machines.
